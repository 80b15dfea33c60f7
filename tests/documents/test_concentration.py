"""Customer concentration read the way other writers state it (sentences written for this
test in the wording of real 10-Ks, not taken from the producer's corpus): a share of revenue
tied to a counterparty is a disclosure; a share tied to a place, an industry, a part of the
company or negated is not. Recall and false alarms are printed; every sentence must be read
right (``pe_eval_core.documents.concentration``)."""

from __future__ import annotations

import pytest

from pe_eval_core.documents.concentration import concentration_share
from pe_eval_core.documents.flag_rules import discloses

DISCLOSURES = [
    (
        "Sales to Walmart Inc. and its affiliates represented approximately 21% of our net "
        "sales in fiscal 2025."
    ),
    (
        "Our top three customers accounted for 44%, 41% and 39% of net revenues in 2025, 2024"
        " and 2023, respectively."
    ),
    "One customer accounted for 12% of total revenue for the year ended December 31, 2025.",
    (
        "Revenue from our largest client, a global investment bank, was $84.1 million, or 17%"
        " of total revenue."
    ),
    (
        "We derived approximately 33% of our revenues from our contracts with the U.S. "
        "federal government."
    ),
    "Amazon.com accounted for 28.4% of the Company's consolidated net sales.",
    (
        "Customer A and Customer B represented 18% and 11%, respectively, of our accounts "
        "receivable and 15% and 12% of revenue."
    ),
    (
        "Approximately 26% of our total revenues came from our two largest payors, Medicare "
        "and Blue Cross Blue Shield of Texas."
    ),
    "Our largest distributor, McKesson Corporation, accounted for 31% of our gross sales in 2025.",
    "Apple represented 54 percent of our net revenue in fiscal 2025.",
    (
        "The Company had one customer, a major national carrier, that accounted for 19% of "
        "net revenue."
    ),
    "Approximately 11% of revenue was generated from sales through Amazon's marketplace.",
    "Revenues from the State of California's Medi-Cal program were 16% of total revenues.",
    "In fiscal 2025, Walton Home Supply accounted for 23.5% of our operating revenues.",
    (
        "Our largest customer, a national home-improvement retailer, accounted for "
        "approximately 23.5% of our operating revenues in 2025, and our five largest "
        "customers together accounted for 48% of operating revenues."
    ),
    (
        "McAllister Medical, Brightline Distribution and Ostrander Supply together "
        "represented 57% of our net product sales in fiscal 2025, and McAllister Medical "
        "alone represented 26% of net product sales."
    ),
    (
        "Our largest correspondent partner, Coastal Home Funding, accounted for 27% of our "
        "total revenues in fiscal 2025."
    ),
    "Medicare and Medicaid programs accounted for 46% of our net revenues in 2025.",
    (
        "During 2025, sales to our two largest wholesalers, Cardinal Health and "
        "AmerisourceBergen, totaled 58% of gross product sales."
    ),
    "The U.S. Department of Defense accounted for 37% of our revenue in fiscal 2025.",
]
NOT_DISCLOSURES = [
    "No customer accounted for 10% or more of our net revenues in 2025, 2024 or 2023.",
    (
        "International revenues, primarily from customers in Europe and Asia, represented 34%"
        " of total revenues."
    ),
    "Our Enterprise segment generated 62% of consolidated revenue.",
    "Product revenue accounted for 71% of total revenues, and services revenue accounted for 29%.",
    "Sales of our flagship X200 analyzer represented 45% of net sales.",
    "Revenue from customers in the United Kingdom was 14% of total revenue.",
    "Our subscription business represented 83% of revenue in 2025.",
    "Gross margin was 41% of net sales.",
    "Research and development expenses were 18% of revenue.",
    "Our ten largest customers accounted for less than 10% of revenue.",
    "Our top customer accounted for 9% of revenues.",
    (
        "Approximately 35% of our revenues are derived from customers in the financial "
        "services industry."
    ),
    (
        "Approximately 14% of our revenues were derived from loans originated in Florida, "
        "where elevated insurance costs have reduced purchase activity."
    ),
    "Approximately 22% of our net revenues were generated in Texas, where fee schedules changed.",
    "Subscription revenue was $271.9 million, or 91% of total revenues.",
    (
        "Revenue from our Dedicated Contract Carriage segment was $489.2 million, or 38% of "
        "total revenues, compared with 35% in 2024."
    ),
    (
        "Our brokerage subsidiary, Lakeshore Logistics Solutions, arranges freight for "
        "shippers using third-party carriers and generated 12% of total revenues in 2025."
    ),
    "No single end customer accounted for more than 10% of total revenues in fiscal 2024.",
    "Sales to customers in Germany represented 18% of net sales.",
    (
        "Total revenues decreased 9.4% to $612.3 million in fiscal 2025 from $675.9 million "
        "in fiscal 2024."
    ),
    (
        "A 100 basis point increase in the 30-year mortgage rate historically reduced our "
        "application volume by approximately 18%, which would significantly harm our revenue "
        "and profitability."
    ),
    "Online sales represented 31% of net sales in fiscal 2025, up from 27%.",
    "Our Canadian operations accounted for 13% of consolidated revenues.",
    "We did not have any customer that accounted for more than 10% of revenue in 2025.",
    "Operating expenses increased to 64% of revenues.",
]


def test_recall_and_false_alarms() -> None:
    found = [s for s in DISCLOSURES if concentration_share(s) is not None]
    alarms = [s for s in NOT_DISCLOSURES if concentration_share(s) is not None]
    print(
        f"recall {len(found)}/{len(DISCLOSURES)}, false alarms {len(alarms)}/{len(NOT_DISCLOSURES)}"
    )
    assert set(DISCLOSURES) - set(found) == set()
    assert alarms == []


@pytest.mark.parametrize(
    ("sentence", "share"),
    [
        ("Walton Home Supply accounted for 23.5% of our consolidated operating revenues.", 23.5),
        ("Our top three customers accounted for 44%, 41% and 39% of net revenues.", 39.0),
        (
            "Revenue from our largest client, a bank, was $84.1 million, or 17% of total revenue.",
            17.0,
        ),
    ],
)
def test_the_share_is_the_one_stated(sentence: str, share: float) -> None:
    assert concentration_share(sentence) == share


def test_a_flag_on_a_negated_statement_has_no_defining_fact() -> None:
    s = "No single end customer accounted for more than 10% of total revenues in fiscal 2024."
    assert not discloses("customer_concentration", s, factual=False)
