"""Write ``.mimic/data/growth-stage-leak.json``: the persona's data in Mimic core's expanded shape.

Deterministic (fixed seed, no clock, no network, no LLM): ``python3 mimic_stack/build_data.py``
rewrites the same bytes every time; ``--check`` exits 1 when the committed file is stale.

The data tells the story of ``.mimic/exports/README.md`` (the fact table and its JSON manifest):
100 customers; in the week 2026-04-20..26 (analysed 2026-04-29) $4,820 of MRR was lost to
8 failed charges (decline codes expired_card / insufficient_funds / lost_card), 3 Enterprise
downgrades $799 -> $99 on 2026-04-23 within 14 minutes by the same admin API key, 2
cancellations after ignored usage-drop risk flags, a double charge of invoice ``in_quill_apr``
(``ch_quill_a`` / ``ch_quill_b``, 41 s apart) and Orchard & Pike, active in the product
database but cancelled in billing on 2026-04-20. Every other customer is healthy: paid March
and April invoices, no open failures, an active subscription.

Two views, as in Mimic's revenue-recovery example:
- ``tables``: the product database (PostgreSQL; ``schema.sql``): customers, subscriptions,
  invoices, payments, risk_flags, support_notes. ``customers.id`` N is Stripe ``cus_GL0NN``.
- ``apiResponses.stripe.responses``: Stripe objects keyed by resource (customers, products,
  prices, subscriptions, invoices, charges, payment_intents, events), newest first as Stripe
  lists them, each wrapped as ``{statusCode, headers, body, personaId}``.

When ``.mimic/exports/README.md`` is present its manifest is checked against these constants
(ids, names, amounts, totals), so the two cannot drift apart silently.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sys
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / ".mimic" / "data" / "growth-stage-leak.json"
FACTS_README = HERE.parent / ".mimic" / "exports" / "README.md"

PERSONA = "growth-stage-leak"
AS_OF = "2026-04-29"
WEEK = ("2026-04-20", "2026-04-26")
N_CUSTOMERS = 100
SEED = 20260429

# id -> (name, MRR before the week in USD, plan before, cause, detail)
FAILED = {
    7: ("Tidewater Coffee Co", 249, "expired_card", 20),
    19: ("Kestrel Robotics", 199, "expired_card", 21),
    23: ("Marlow & Finch", 312, "expired_card", 22),
    31: ("Pinecrest Tutoring", 160, "expired_card", 24),
    38: ("Bluebird Events", 180, "insufficient_funds", 21),
    44: ("Copperline Fitness", 240, "insufficient_funds", 25),
    52: ("Ashgrove Veterinary", 150, "lost_card", 23),
    57: ("Sable Print Works", 150, "lost_card", 26),
}  # id -> (name, MRR, decline code, April billing day inside the week)
DOWNGRADED = {
    3: ("Northwind Logistics", "2026-04-23T10:02:11Z", 5),
    11: ("Halcyon Health", "2026-04-23T10:09:37Z", 12),
    16: ("Brightpath Analytics", "2026-04-23T10:16:02Z", 15),
}  # id -> (name, downgrade time, billing day); all Enterprise $799 -> Starter $99
DOWNGRADE_FROM, DOWNGRADE_TO = 799, 99
DOWNGRADE_KEY = "billing-sync"  # the admin API key that made all three changes
RISK_CANCELLED = {
    61: ("Lumen Dental", 360, "2026-04-06T08:00:00Z", "2026-04-21T15:42:00Z", 8),
    66: ("Fernway Studio", 180, "2026-04-09T08:00:00Z", "2026-04-24T11:05:00Z", 11),
}  # id -> (name, MRR, risk flag set, cancelled, billing day)
QUILL = (78, "Quillstone Legal", 241, "2026-04-22T09:14:05Z", "2026-04-22T09:14:46Z")
ORCHARD = (72, "Orchard & Pike", 299, "2026-04-20T00:00:00Z")

PLAN_PRICES = {"starter": [49, 79, 99, 129, 149], "pro": [199, 249, 299, 349, 399, 449]}
PLAN_PRICES["enterprise"] = [799, 999, 1299]

FIRST = [
    "Alder",
    "Amber",
    "Apex",
    "Arbor",
    "Atlas",
    "Aurora",
    "Basalt",
    "Beacon",
    "Birch",
    "Bramble",
    "Cedar",
    "Cinder",
    "Cobalt",
    "Crescent",
    "Cypress",
    "Delta",
    "Drift",
    "Ember",
    "Evergreen",
    "Falcon",
    "Fjord",
    "Foxglove",
    "Garnet",
    "Granite",
    "Harbor",
    "Hazel",
    "Heron",
    "Indigo",
    "Iron",
    "Juniper",
    "Kite",
    "Lantern",
    "Larch",
    "Linden",
    "Maple",
    "Meridian",
    "Mistral",
    "Nimbus",
    "Oakridge",
    "Onyx",
    "Osprey",
    "Pebble",
    "Pioneer",
    "Quarry",
    "Raven",
    "Redwood",
    "Ridge",
    "Saffron",
    "Sage",
    "Slate",
    "Sparrow",
    "Summit",
    "Tamarack",
    "Thistle",
    "Timber",
    "Topaz",
    "Verdant",
    "Willow",
    "Wren",
    "Yarrow",
    "Zephyr",
]
SECOND = [
    "Analytics",
    "Bakery",
    "Builders",
    "Cartography",
    "Clinic",
    "Consulting",
    "Creative",
    "Dental",
    "Design",
    "Freight",
    "Goods",
    "Health",
    "Labs",
    "Legal",
    "Logistics",
    "Media",
    "Outfitters",
    "Partners",
    "Robotics",
    "Software",
    "Studio",
    "Systems",
    "Tutoring",
    "Ventures",
    "Works",
]
CSMS = ("maya.chen", "tom.okafor", "priya.raman")


def ts(iso: str) -> int:
    """Unix seconds of an ISO time (``Z`` or a date)."""
    if len(iso) == 10:
        iso += "T00:00:00Z"
    return int(datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp())


def iso(unix: int) -> str:
    return datetime.fromtimestamp(unix, UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def day(month: int, dom: int, hour: int = 6, minute: int = 0) -> int:
    return int(datetime(2026, month, dom, hour, minute, tzinfo=UTC).timestamp())


def plan_of(mrr: int) -> str:
    return "enterprise" if mrr >= 799 else "pro" if mrr >= 199 else "starter"


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", name.lower().replace("&", "and"))


def wrap(body: dict) -> dict:
    return {
        "statusCode": 200,
        "headers": {"content-type": "application/json"},
        "body": body,
        "personaId": PERSONA,
    }


class Builder:
    def __init__(self) -> None:
        self.rng = random.Random(SEED)
        self.tables: dict[str, list[dict]] = {
            t: []
            for t in (
                "customers",
                "subscriptions",
                "invoices",
                "payments",
                "risk_flags",
                "support_notes",
            )
        }
        self.stripe: dict[str, list[dict]] = {
            r: []
            for r in (
                "customers",
                "products",
                "prices",
                "subscriptions",
                "invoices",
                "charges",
                "payment_intents",
                "events",
            )
        }
        self.prices: dict[tuple[str, int], dict] = {}

    # -- Stripe building blocks ---------------------------------------------------------------
    def price(self, plan: str, usd: int) -> dict:
        key = (plan, usd)
        if key not in self.prices:
            self.prices[key] = {
                "id": f"price_{plan}_{usd}",
                "object": "price",
                "active": True,
                "currency": "usd",
                "unit_amount": usd * 100,
                "type": "recurring",
                "recurring": {"interval": "month", "interval_count": 1},
                "product": f"prod_{plan}",
                "nickname": f"{plan.title()} ${usd}/month",
                "livemode": False,
                "created": day(1, 5),
                "metadata": {},
            }
        return self.prices[key]

    def charge_pair(
        self,
        cid: int,
        cus: str,
        inv_id: str,
        usd: int,
        created: int,
        *,
        suffix: str,
        failure: str | None = None,
    ) -> tuple[str, str]:
        """A charge and its payment intent; returns (charge id, payment intent id)."""
        ch_id, pi_id = f"ch_{suffix}", f"pi_{suffix}"
        last4 = f"{(cid * 37) % 10000:04d}"
        card = {
            "brand": ["visa", "mastercard", "amex"][cid % 3],
            "last4": last4,
            "exp_month": 3 if failure == "expired_card" else 1 + cid % 12,
            "exp_year": 2026 if failure == "expired_card" else 2027 + cid % 3,
            "funding": "credit",
            "country": "US",
        }
        charge = {
            "id": ch_id,
            "object": "charge",
            "amount": usd * 100,
            "amount_captured": 0 if failure else usd * 100,
            "amount_refunded": 0,
            "captured": not failure,
            "paid": not failure,
            "refunded": False,
            "currency": "usd",
            "customer": cus,
            "invoice": inv_id,
            "payment_intent": pi_id,
            "created": created,
            "status": "failed" if failure else "succeeded",
            "description": f"Payment for invoice {inv_id}",
            "payment_method_details": {"type": "card", "card": card},
            "livemode": False,
            "metadata": {},
        }
        if failure:
            code = "expired_card" if failure == "expired_card" else "card_declined"
            charge["failure_code"] = code
            charge["failure_message"] = {
                "expired_card": "Your card has expired.",
                "insufficient_funds": "Your card has insufficient funds.",
                "lost_card": "Your card has been declined.",
            }[failure]
            charge["outcome"] = {
                "network_status": "declined_by_network",
                "reason": failure,
                "type": "issuer_declined",
                "seller_message": f"The bank returned the decline code `{failure}`.",
            }
        else:
            charge["failure_code"] = None
            charge["failure_message"] = None
            charge["outcome"] = {
                "network_status": "approved_by_network",
                "reason": None,
                "type": "authorized",
                "seller_message": "Payment complete.",
            }
        intent = {
            "id": pi_id,
            "object": "payment_intent",
            "amount": usd * 100,
            "amount_received": 0 if failure else usd * 100,
            "currency": "usd",
            "customer": cus,
            "invoice": inv_id,
            "latest_charge": ch_id,
            "created": created,
            "status": "requires_payment_method" if failure else "succeeded",
            "payment_method_types": ["card"],
            "description": f"Payment for invoice {inv_id}",
            "livemode": False,
            "metadata": {},
            "last_payment_error": None,
        }
        if failure:
            intent["last_payment_error"] = {
                "type": "card_error",
                "code": charge["failure_code"],
                "decline_code": failure,
                "message": charge["failure_message"],
                "charge": ch_id,
            }
        self.stripe["charges"].append(charge)
        self.stripe["payment_intents"].append(intent)
        return ch_id, pi_id

    # -- the population -----------------------------------------------------------------------
    def names(self) -> dict[int, str]:
        special = {cid: v[0] for cid, v in FAILED.items()}
        special.update({cid: v[0] for cid, v in DOWNGRADED.items()})
        special.update({cid: v[0] for cid, v in RISK_CANCELLED.items()})
        special[QUILL[0]] = QUILL[1]
        special[ORCHARD[0]] = ORCHARD[1]
        taken = {n.split()[0] for n in special.values()}
        pool = [f"{a} {b}" for a in FIRST if a not in taken for b in SECOND]
        self.rng.shuffle(pool)
        it = iter(pool)  # distinct names, so distinct email domains
        return {cid: special.get(cid) or next(it) for cid in range(1, N_CUSTOMERS + 1)}

    def build(self) -> dict:
        names = self.names()
        for cid in range(1, N_CUSTOMERS + 1):
            self.customer(cid, names[cid])
        self.risk_flags_and_notes(names)
        # Stripe lists newest first.
        for resource in ("customers", "subscriptions", "invoices", "charges", "payment_intents"):
            self.stripe[resource].sort(key=lambda o: (-o["created"], o["id"]))
        self.stripe["events"].sort(key=lambda o: (-o["created"], o["id"]))
        self.stripe["prices"] = sorted(self.prices.values(), key=lambda p: p["id"])
        self.stripe["products"] = [
            {
                "id": f"prod_{plan}",
                "object": "product",
                "name": plan.title(),
                "active": True,
                "created": day(1, 5),
                "livemode": False,
                "metadata": {"plan": plan},
            }
            for plan in ("starter", "pro", "enterprise")
        ]
        for table in ("invoices", "payments", "support_notes", "risk_flags", "subscriptions"):
            when = "set_at" if table == "risk_flags" else "created_at"
            rows = sorted(self.tables[table], key=lambda r: (r[when], r["customer_id"]))
            for i, row in enumerate(rows, 1):
                row["id"] = i
            self.tables[table] = [{"id": r.pop("id"), **r} for r in rows]
        return self.expanded()

    def customer(self, cid: int, name: str) -> None:
        rng = self.rng
        cus = f"cus_GL{cid:03d}"
        email_domain = slug(name) + ".example.com"
        contact = ["billing", "finance", "accounts", "ops"][cid % 4]
        created = day(1, 1) - (cid * 5 + rng.randrange(0, 4)) * 86400
        bill_day = 1 + (cid * 11) % 28
        status_db, sub_status_db, sub_status_st = "active", "active", "active"
        mrr_before = None
        canceled_at = None
        cancel_reason = None
        if cid in FAILED:
            _, mrr, _code, bill_day = FAILED[cid]
            mrr_now = mrr
            status_db, sub_status_db, sub_status_st = "past_due", "past_due", "past_due"
        elif cid in DOWNGRADED:
            bill_day = DOWNGRADED[cid][2]
            mrr_before, mrr_now = DOWNGRADE_FROM, DOWNGRADE_TO
        elif cid in RISK_CANCELLED:
            _, mrr, _flag, cancelled, bill_day = RISK_CANCELLED[cid]
            mrr_now = mrr
            canceled_at = ts(cancelled)
            status_db, sub_status_db, sub_status_st = "churned", "canceled", "canceled"
            cancel_reason = "Usage dropped off; moving to a cheaper tool (exit survey)"
        elif cid == QUILL[0]:
            mrr_now, bill_day = QUILL[2], 22
        elif cid == ORCHARD[0]:
            mrr_now, bill_day = ORCHARD[2], 20
            canceled_at = ts(ORCHARD[3])
            sub_status_st = "canceled"  # billing cancelled it; the product DB never heard
        else:
            plan = rng.choice(["starter"] * 5 + ["pro"] * 4 + ["enterprise"])
            mrr_now = rng.choice(PLAN_PRICES[plan])
            if bill_day in range(20, 27):  # keep the week's story to the 15 customers
                bill_day = bill_day - 10
        plan_now = plan_of(mrr_now)
        plan_before = plan_of(mrr_before) if mrr_before else plan_now
        churned = cid in RISK_CANCELLED
        db_mrr = 0 if churned else mrr_now * 100

        self.tables["customers"].append(
            {
                "id": cid,
                "name": name,
                "email": f"{contact}@{email_domain}",
                "company": name,
                "stripe_customer_id": cus,
                "plan": plan_now,
                "status": status_db,
                "mrr_cents": db_mrr,
                "created_at": iso(created),
                "updated_at": iso(
                    canceled_at
                    if churned
                    else ts(DOWNGRADED[cid][1])
                    if cid in DOWNGRADED
                    else day(4, bill_day)
                ),
            }
        )
        self.stripe["customers"].append(
            {
                "id": cus,
                "object": "customer",
                "name": name,
                "email": f"{contact}@{email_domain}",
                "description": name,
                "created": created,
                "currency": "usd",
                "delinquent": cid in FAILED,
                "balance": 0,
                "livemode": False,
                "invoice_prefix": f"GL{cid:03d}",
                "metadata": {"product_account_id": str(cid)},
            }
        )

        # Subscription (Stripe + DB).
        sub_id = "sub_orchard" if cid == ORCHARD[0] else f"sub_GL{cid:03d}"
        price = self.price(plan_now, mrr_now)
        period_start = day(4, bill_day, 0)
        period_end = day(5, bill_day, 0)
        if cid == ORCHARD[0]:  # cancelled at the end of the March period
            period_start, period_end = day(3, 20, 0), day(4, 20, 0)
        sub = {
            "id": sub_id,
            "object": "subscription",
            "customer": cus,
            "status": sub_status_st,
            "created": created,
            "start_date": created,
            "billing_cycle_anchor": created,
            "current_period_start": period_start,
            "current_period_end": period_end,
            "cancel_at_period_end": False,
            "canceled_at": canceled_at,
            "ended_at": canceled_at,
            "cancellation_details": None,
            "collection_method": "charge_automatically",
            "currency": "usd",
            "items": {
                "object": "list",
                "data": [
                    {
                        "id": f"si_GL{cid:03d}",
                        "object": "subscription_item",
                        "price": price,
                        "quantity": 1,
                        "subscription": sub_id,
                    }
                ],
            },
            "plan": {
                "id": price["id"],
                "object": "plan",
                "amount": mrr_now * 100,
                "currency": "usd",
                "interval": "month",
                "product": price["product"],
                "nickname": price["nickname"],
            },
            "latest_invoice": None,
            "livemode": False,
            "metadata": {"plan": plan_now, "product_account_id": str(cid)},
        }
        if cid in RISK_CANCELLED:
            sub["cancellation_details"] = {
                "reason": "cancellation_requested",
                "feedback": "unused" if cid == 61 else "switched_service",
                "comment": "Not using it enough to justify the price",
            }
        if cid == ORCHARD[0]:
            sub["cancel_at_period_end"] = True
            sub["cancellation_details"] = {
                "reason": "cancellation_requested",
                "feedback": "too_expensive",
                "comment": "Cancelled from the billing portal",
            }
        if cid in DOWNGRADED:
            sub["metadata"].update(
                {
                    "previous_plan": plan_before,
                    "previous_amount": str(DOWNGRADE_FROM * 100),
                    "downgraded_at": DOWNGRADED[cid][1],
                    "changed_by": f"api_key:{DOWNGRADE_KEY}",
                }
            )
        self.stripe["subscriptions"].append(sub)
        self.tables["subscriptions"].append(
            {
                "customer_id": cid,
                "stripe_subscription_id": sub_id,
                "plan": plan_now,
                "status": sub_status_db,
                "interval": "month",
                "amount_cents": mrr_now * 100,
                "current_period_start": iso(
                    day(4, bill_day, 0) if cid != ORCHARD[0] else day(4, 20, 0)
                ),
                "current_period_end": iso(
                    day(5, bill_day, 0) if cid != ORCHARD[0] else day(5, 20, 0)
                ),
                "canceled_at": iso(canceled_at) if churned else None,
                "cancellation_reason": cancel_reason,  # null for Orchard & Pike: never synced
                "created_at": iso(created),
            }
        )

        # Invoices and payments: March and April.
        months = [3, 4]
        if cid == ORCHARD[0]:
            months = [3]  # cancelled at the April renewal: no April invoice
        for month in months:
            usd = mrr_before if (mrr_before and month in (3, 4)) else mrr_now
            created_inv = day(month, bill_day, 6)
            tag = "mar" if month == 3 else "apr"
            inv_id = f"in_quill_{tag}" if cid == QUILL[0] else f"in_GL{cid:03d}_2026{month:02d}"
            failed = cid in FAILED and month == 4
            code = FAILED[cid][2] if failed else None
            if cid == QUILL[0] and month == 4:
                ch_a, pi_a = self.charge_pair(cid, cus, inv_id, usd, ts(QUILL[3]), suffix="quill_a")
                ch_b, pi_b = self.charge_pair(cid, cus, inv_id, usd, ts(QUILL[4]), suffix="quill_b")
                pays = [(ch_a, pi_a, ts(QUILL[3]), None), (ch_b, pi_b, ts(QUILL[4]), None)]
                created_inv = ts(QUILL[3]) - 3600
            else:
                suffix = f"GL{cid:03d}_2026{month:02d}"
                if cid == QUILL[0]:
                    suffix = f"quill_{tag}"
                ch, pi = self.charge_pair(
                    cid, cus, inv_id, usd, created_inv + 3600, suffix=suffix, failure=code
                )
                pays = [(ch, pi, created_inv + 3600, code)]
            paid_at = None if failed else pays[0][2]
            invoice = {
                "id": inv_id,
                "object": "invoice",
                "customer": cus,
                "customer_name": name,
                "subscription": sub_id,
                "status": "open" if failed else "paid",
                "paid": not failed,
                "amount_due": usd * 100,
                "amount_paid": 0 if failed else usd * 100,
                "amount_remaining": usd * 100 if failed else 0,
                "total": usd * 100,
                "subtotal": usd * 100,
                "currency": "usd",
                "created": created_inv,
                "period_start": day(month - 1, bill_day, 0),
                "period_end": day(month, bill_day, 0),
                "due_date": None,
                "attempt_count": 1,
                "attempted": True,
                "charge": pays[0][0],
                "payment_intent": pays[0][1],
                "billing_reason": "subscription_cycle",
                "collection_method": "charge_automatically",
                "status_transitions": {
                    "finalized_at": created_inv,
                    "paid_at": paid_at,
                },
                "next_payment_attempt": (day(4, bill_day + 3, 6) if failed else None),
                "lines": {
                    "object": "list",
                    "data": [
                        {
                            "id": f"il_{inv_id[3:]}",
                            "object": "line_item",
                            "amount": usd * 100,
                            "currency": "usd",
                            "description": f"1 x {plan_of(usd).title()} (at ${usd}.00 / month)",
                            "price": self.price(plan_of(usd), usd)["id"],
                            "quantity": 1,
                        }
                    ],
                },
                "livemode": False,
                "metadata": {},
            }
            if cid == QUILL[0] and month == 4:
                invoice["metadata"] = {"charges": "ch_quill_a,ch_quill_b"}
            self.stripe["invoices"].append(invoice)
            if sub["latest_invoice"] is None or month == 4:
                sub["latest_invoice"] = inv_id
            self.tables["invoices"].append(
                {
                    "customer_id": cid,
                    "stripe_invoice_id": inv_id,
                    "amount_cents": usd * 100,
                    "status": "open" if failed else "paid",
                    "due_date": iso(created_inv),
                    "paid_at": iso(paid_at) if paid_at else None,
                    "created_at": iso(created_inv),
                }
            )
            for ch, pi, when, fail in pays:
                self.tables["payments"].append(
                    {
                        "customer_id": cid,
                        "stripe_payment_id": ch,
                        "stripe_payment_intent_id": pi,
                        "amount_cents": usd * 100,
                        "currency": "usd",
                        "status": "failed" if fail else "succeeded",
                        "payment_method": "card",
                        "failure_reason": fail,
                        "created_at": iso(when),
                    }
                )
            if failed:
                self.event("invoice.payment_failed", pays[0][2] + 5, invoice, suffix=inv_id[3:])
        if cid in DOWNGRADED:
            when = ts(DOWNGRADED[cid][1])
            old_price = self.price("enterprise", DOWNGRADE_FROM)
            self.event(
                "customer.subscription.updated",
                when,
                sub,
                suffix=f"GL{cid:03d}_downgrade",
                previous={
                    "items": {"data": [{"price": {"id": old_price["id"], "unit_amount": 79900}}]},
                    "plan": {"id": old_price["id"], "amount": 79900},
                },
                request={
                    "id": f"req_bs{cid:03d}",
                    "idempotency_key": None,
                    "api_key": "billing-sync",
                },
            )
        if canceled_at is not None:
            self.event(
                "customer.subscription.deleted", canceled_at, sub, suffix=f"GL{cid:03d}_cancel"
            )
        if cid == QUILL[0]:
            for ch in ("quill_a", "quill_b"):
                charge = next(c for c in self.stripe["charges"] if c["id"] == f"ch_{ch}")
                self.event("charge.succeeded", charge["created"], charge, suffix=ch)

    def event(
        self,
        kind: str,
        created: int,
        obj: dict,
        *,
        suffix: str,
        previous: dict | None = None,
        request: dict | None = None,
    ) -> None:
        data: dict = {"object": json.loads(json.dumps(obj))}
        if previous:
            data["previous_attributes"] = previous
        self.stripe["events"].append(
            {
                "id": f"evt_{suffix}",
                "object": "event",
                "type": kind,
                "created": created,
                "data": data,
                "request": request or {"id": None, "idempotency_key": None},
                "livemode": False,
                "pending_webhooks": 0,
                "api_version": "2024-06-20",
            }
        )

    def risk_flags_and_notes(self, names: dict[int, str]) -> None:
        flags = self.tables["risk_flags"]
        notes = self.tables["support_notes"]
        for cid, (_name, _mrr, flagged, cancelled, _d) in RISK_CANCELLED.items():
            flags.append(
                {
                    "customer_id": cid,
                    "flag_type": "churn_risk",
                    "severity": "high",
                    "set_by": "system:usage-monitor",
                    "set_at": iso(ts(flagged)),
                    "resolved_at": None,  # never followed up
                    "note": "Usage drop: weekly active users down more than 60% over 3 weeks. "
                    "Assign a CSM follow-up.",
                    "created_at": iso(ts(flagged)),
                }
            )
            notes.append(
                {
                    "customer_id": cid,
                    "author": "support:ana.silva",
                    "body": "Customer cancelled from the billing portal. Exit survey: not using "
                    "it enough to justify the price. No CSM contact since the usage-drop flag.",
                    "tags": "churn-risk,cancellation",
                    "created_at": iso(ts(cancelled) + 1800),
                }
            )
        # Healthy-customer flags: resolved, or raised after the week.
        extra = [
            (25, "billing_dispute", "medium", "2026-03-02", "2026-03-09", "Disputed a seat count"),
            (48, "support_escalation", "low", "2026-03-18", "2026-03-20", "Slow SSO setup"),
            (83, "contract_concern", "low", "2026-04-27", None, "Asked about annual pricing"),
            (90, "competitor_mentioned", "medium", "2026-02-11", "2026-02-25", "Compared us"),
        ]
        for cid, kind, sev, set_on, resolved, note in extra:
            flags.append(
                {
                    "customer_id": cid,
                    "flag_type": kind,
                    "severity": sev,
                    "set_by": CSMS[cid % 3],
                    "set_at": iso(ts(set_on) + 9 * 3600),
                    "resolved_at": iso(ts(resolved) + 9 * 3600) if resolved else None,
                    "note": note,
                    "created_at": iso(ts(set_on) + 9 * 3600),
                }
            )
        qid = QUILL[0]
        notes.append(
            {
                "customer_id": qid,
                "author": "support:ana.silva",
                "body": "Quillstone Legal emailed: their bank statement shows two $241.00 "
                "charges on 2026-04-22 for the April invoice (in_quill_apr). Forwarded to billing.",
                "tags": "billing,double-charge",
                "created_at": iso(ts("2026-04-23T14:20:00Z")),
            }
        )
        oid = ORCHARD[0]
        notes.append(
            {
                "customer_id": oid,
                "author": "system:usage-digest",
                "body": "Weekly usage digest: 7 active seats, last login 2026-04-28.",
                "tags": "usage",
                "created_at": iso(ts("2026-04-28T23:00:00Z")),
            }
        )
        for cid, (_n, _mrr, code, bill_day) in FAILED.items():
            notes.append(
                {
                    "customer_id": cid,
                    "author": "system:dunning",
                    "body": f"Automatic payment failed ({code}); dunning email 1 of 3 sent.",
                    "tags": "billing,dunning",
                    "created_at": iso(day(4, bill_day, 7, 5)),
                }
            )
        topics = [
            ("Quarterly check-in, happy with reporting.", "csm,check-in"),
            ("Feature request: CSV export of dashboards.", "feature-request"),
            ("Asked how to add a second admin.", "how-to"),
            ("Invoice copy requested for their accountant.", "billing"),
            ("Onboarding call for two new team members.", "csm,onboarding"),
        ]
        rng = random.Random(SEED + 1)
        healthy = [
            c
            for c in range(1, N_CUSTOMERS + 1)
            if c not in FAILED
            and c not in DOWNGRADED
            and c not in RISK_CANCELLED
            and c not in (QUILL[0], ORCHARD[0])
        ]
        for cid in sorted(rng.sample(healthy, 18)):
            body, tags = topics[cid % len(topics)]
            notes.append(
                {
                    "customer_id": cid,
                    "author": CSMS[cid % 3],
                    "body": body,
                    "tags": tags,
                    "created_at": iso(day(rng.choice([2, 3]), rng.randrange(1, 28), 10)),
                }
            )
        for row in flags:
            row.pop("created_at")
        for row in flags + notes:
            assert names[row["customer_id"]]

    def expanded(self) -> dict:
        responses = {r: [wrap(o) for o in objs] for r, objs in self.stripe.items()}
        tables = self.tables
        checksum = hashlib.sha256(
            json.dumps([tables, responses], sort_keys=True).encode()
        ).hexdigest()
        facts = [
            {
                "id": f["fact"],
                "type": f["type"],
                "platform": f["platform"],
                "severity": "critical" if f["mrr"] >= 1000 else "warn",
                "detail": f["detail"],
                "data": {"mrr_lost_usd": f["mrr"], "customers": f["customers"]},
            }
            for f in CAUSES
        ]
        return {
            "personaId": PERSONA,
            "blueprint": {
                "version": "1.0",
                "personaId": PERSONA,
                "domain": "SaaS revenue recovery and reconciliation",
                "generatedAt": f"{AS_OF}T00:00:00.000Z",
                "generatedBy": "pe-eval mimic_stack/build_data.py (hand-written, no LLM)",
                "checksum": checksum,
                "persona": {
                    "name": PERSONA,
                    "age": 4,
                    "occupation": "growth-stage B2B SaaS (100 paying customers)",
                    "location": "US",
                    "salary": None,
                    "description": "Lost $4,820 of MRR in the week 2026-04-20 to 2026-04-26",
                },
                "data": {
                    "entities": {},
                    "patterns": [],
                    "annotations": {"as_of": AS_OF, "week": {"start": WEEK[0], "end": WEEK[1]}},
                    "facts": facts,
                },
            },
            "tables": tables,
            "documents": {},
            "apiResponses": {"stripe": {"adapterId": "stripe", "responses": responses}},
            "files": [],
            "events": [],
            "facts": facts,
        }


CAUSES = [
    {
        "fact": "fact_001",
        "type": "anomaly",
        "platform": "stripe",
        "mrr": 4820,
        "customers": 15,
        "detail": "The week's total MRR lost is $4,820 across five causes.",
    },
    {
        "fact": "fact_002",
        "type": "payment",
        "platform": "stripe",
        "mrr": sum(v[1] for v in FAILED.values()),
        "customers": len(FAILED),
        "detail": "8 failed charges worth $1,640: 4 expired card, 2 insufficient funds, "
        "2 lost card.",
    },
    {
        "fact": "fact_003",
        "type": "downgrade",
        "platform": "stripe",
        "mrr": (DOWNGRADE_FROM - DOWNGRADE_TO) * len(DOWNGRADED),
        "customers": len(DOWNGRADED),
        "detail": "3 Enterprise customers downgraded from $799 to $99 on 2026-04-23: $2,100.",
    },
    {
        "fact": "fact_004",
        "type": "churn",
        "platform": "postgres",
        "mrr": sum(v[1] for v in RISK_CANCELLED.values()),
        "customers": len(RISK_CANCELLED),
        "detail": "2 cancellations after ignored risk flags: $540.",
    },
    {
        "fact": "fact_005",
        "type": "refund",
        "platform": "stripe",
        "mrr": QUILL[2],
        "customers": 1,
        "detail": "Quillstone Legal was charged $241 twice on 2026-04-22.",
    },
    {
        "fact": "fact_006",
        "type": "integrity",
        "platform": "postgres",
        "mrr": ORCHARD[2],
        "customers": 1,
        "detail": "Orchard & Pike is active in the product but cancelled in billing on "
        "2026-04-20: $299.",
    },
    {
        "fact": "fact_007",
        "type": "anomaly",
        "platform": "postgres",
        "mrr": 4820,
        "customers": 15,
        "detail": "15 of the 100 customers were affected.",
    },
]


def check_against_manifest(readme: Path = FACTS_README) -> list[str]:
    """Differences between these constants and the README's JSON manifest (empty: in sync)."""
    if not readme.exists():
        return []
    block = re.search(r"```json\n(.*?)\n```", readme.read_text(), re.S)
    if not block:
        return [f"{readme}: no JSON manifest block"]
    manifest = json.loads(block.group(1))
    problems = []
    if manifest["customers_total"] != N_CUSTOMERS:
        problems.append("customers_total")
    if manifest["total_mrr_lost_usd"] != sum(c["mrr"] for c in CAUSES[1:6]):
        problems.append("total_mrr_lost_usd != sum of the causes")
    if manifest["week"] != {"start": WEEK[0], "end": WEEK[1]} or manifest["as_of"] != AS_OF:
        problems.append("week / as_of")
    ours = {}
    for cid, v in FAILED.items():
        ours[f"cus_GL{cid:03d}"] = (v[0], v[1], v[2])
    for cid, v in DOWNGRADED.items():
        ours[f"cus_GL{cid:03d}"] = (v[0], DOWNGRADE_FROM - DOWNGRADE_TO, None)
    for cid, v in RISK_CANCELLED.items():
        ours[f"cus_GL{cid:03d}"] = (v[0], v[1], None)
    ours[f"cus_GL{QUILL[0]:03d}"] = (QUILL[1], QUILL[2], None)
    ours[f"cus_GL{ORCHARD[0]:03d}"] = (ORCHARD[1], ORCHARD[2], None)
    theirs = {}
    for cause in manifest["causes"]:
        for c in cause["customers"]:
            code = c["detail"] if cause["cause"] == "failed_charges" else None
            theirs[c["id"]] = (c["name"], c["mrr_lost_usd"], code)
    if ours != theirs:
        diff = sorted(set(ours.items()) ^ set(theirs.items()))
        problems.append(f"affected customers differ: {diff}")
    return problems


def render() -> str:
    return json.dumps(Builder().build(), indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is stale")
    args = parser.parse_args(argv)
    problems = check_against_manifest()
    if problems:
        print("out of sync with .mimic/exports/README.md: " + "; ".join(problems), file=sys.stderr)
        return 1
    text = render()
    if args.check:
        current = OUT.read_text() if OUT.exists() else ""
        if current != text:
            print(f"{OUT} is stale: run python3 mimic_stack/build_data.py", file=sys.stderr)
            return 1
        print(f"{OUT} is up to date")
        return 0
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(text)
    print(f"wrote {OUT} ({len(text) // 1024} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
