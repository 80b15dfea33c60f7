"""Tool results the corpus's agents read: a SaaS billing world (Mimic's database and Stripe
servers), a support desk and a small shop, written the way those tools return them."""

from __future__ import annotations

import json
from pathlib import Path

from tests.scenarios.agreement.harness import Call

DB = "mimic-database"
STRIPE = "mimic-stripe"

FAILED_PAYMENTS = [
    {"id": 501, "customer": "Kestrel Analytics", "amount_cents": 34900, "status": "failed",
     "failure_reason": "card_expired", "created_at": "2026-05-04T08:10:00Z"},
    {"id": 502, "customer": "Morrow & Finch", "amount_cents": 12900, "status": "failed",
     "failure_reason": "card_expired", "created_at": "2026-05-05T09:00:00Z"},
    {"id": 503, "customer": "Tidewater Clinics", "amount_cents": 49900, "status": "failed",
     "failure_reason": "insufficient_funds", "created_at": "2026-05-06T11:20:00Z"},
    {"id": 504, "customer": "Pinecrest Labs", "amount_cents": 12900, "status": "failed",
     "failure_reason": "card_expired", "created_at": "2026-05-07T14:00:00Z"},
    {"id": 505, "customer": "Oakhurst Media", "amount_cents": 7900, "status": "failed",
     "failure_reason": "do_not_honor", "created_at": "2026-05-08T16:45:00Z"},
]  # fmt: skip
"""card_expired 349 + 129 + 129 = $607; insufficient_funds $499; do_not_honor $79; $1,185."""

DOWNGRADES = {
    "period": "2026-05-04/2026-05-10",
    "data": [
        {"customer": "Northgate Foods", "plan": "starter", "mrr": 99, "previous_mrr": 799,
         "changed_at": "2026-05-06T10:02:00Z"},
        {"customer": "Halden Freight", "plan": "starter", "mrr": 99, "previous_mrr": 799,
         "changed_at": "2026-05-06T10:09:00Z"},
        {"customer": "Brightwave", "plan": "starter", "mrr": 99, "previous_mrr": 799,
         "changed_at": "2026-05-06T10:16:00Z"},
    ],
}  # fmt: skip
"""700 each; $2,100 in all."""

ACCOUNT_ORCHARD = [
    {"id": 72, "company": "Orchard Row", "status": "active", "plan": "pro", "mrr_cents": 29900,
     "subscription_canceled_at": "2026-04-20T00:00:00Z", "last_login_at": "2026-04-29T15:00:00Z"}
]  # fmt: skip

MRR_SUMMARY = {"mrr_start_cents": 1250000, "mrr_end_cents": 1036000, "customers": 100}
"""MRR fell $2,140, 17.1%."""

PAYMENT_INTENTS_TEXT = (
    "Payment intents (4):\n"
    "• pi_3Kx1 — 349.00 usd [requires_payment_method]\n"
    "• pi_3Kx2 — 129.00 usd [requires_payment_method]\n"
    "• pi_3Kx3 — 499.00 usd [succeeded]\n"
    "• pi_3Kx4 — 129.00 usd [requires_payment_method]"
)
"""Stripe's text form: 3 need a payment method ($607), 1 succeeded ($499)."""

TICKETS = [
    {"id": 9001, "customer": "Tidewater Clinics", "priority": "urgent", "status": "open",
     "created_at": "2026-05-04T08:00:00Z", "first_response_at": "2026-05-05T20:00:00Z"},
    {"id": 9002, "customer": "Tidewater Clinics", "priority": "normal", "status": "solved",
     "created_at": "2026-05-05T09:30:00Z", "first_response_at": "2026-05-05T11:30:00Z"},
    {"id": 9003, "customer": "Kestrel Analytics", "priority": "normal", "status": "solved",
     "created_at": "2026-05-06T13:00:00Z", "first_response_at": "2026-05-06T14:00:00Z"},
    {"id": 9004, "customer": "Morrow & Finch", "priority": "urgent", "status": "open",
     "created_at": "2026-05-07T07:15:00Z", "first_response_at": "2026-05-07T09:15:00Z"},
    {"id": 9005, "customer": "Kestrel Analytics", "priority": "low", "status": "solved",
     "created_at": "2026-05-08T10:00:00Z", "first_response_at": "2026-05-08T10:30:00Z"},
    {"id": 9006, "customer": "Pinecrest Labs", "priority": "normal", "status": "open",
     "created_at": "2026-05-08T16:00:00Z", "first_response_at": "2026-05-09T09:00:00Z"},
]  # fmt: skip
"""6 tickets from 4 customers; 3 open; urgent 2; first response 36 h for ticket 9001."""

SHOP_SUMMARY = {"store": "Fenwick Outdoor", "orders": 300, "refunds": 12, "refunded_cents": 186000}
"""Refund rate 4%; $1,860 refunded, $155 per refund."""


def payments_call() -> Call:
    return Call(DB, "get_payments", {"status": "failed"}, FAILED_PAYMENTS)


def downgrades_call() -> Call:
    return Call(STRIPE, "list_subscriptions", {"status": "active"}, DOWNGRADES)


_CAPTURED = json.loads(
    (Path(__file__).parent.parent / "fixtures" / "mimic_tool_results.json").read_text("utf-8")
)["calls"]


def mimic_call(tool: str) -> Call:
    """A call with the result Mimic's own server returned (``fixtures/mimic_tool_results``)."""
    c = next(c for c in _CAPTURED if c["tool"] == tool)
    return Call(c["server"], c["tool"], c["arguments"], c["result"])
