"""Anonymised comparison: nothing a provider wrote identifies it on the page, in the API or in
the exports; labels stay with their bid whatever the weights, revisions or withdrawals."""

from __future__ import annotations

import io
import json
from decimal import Decimal
from typing import Any

import pytest
from django.urls import reverse
from openpyxl import load_workbook

from bids.services import bid_save_draft, bid_submit, bid_withdraw
from evaluation.anonymise import HIDDEN
from evaluation.services import request_set_weights
from questionnaire.demo import PROFILES, demo_answers
from questionnaire.services import answers_save, question_set_attach_default
from tests.api.v1.conftest import token_client
from tests.evaluation.pages.conftest import score

pytestmark = pytest.mark.django_db

# What each provider wrote that would name it: site, billing and support text, notes, and a
# free-text answer and a comment in the questionnaire, with contacts.
SEEDS = {
    "bid": {
        "site": "Helsinki HEL-1",
        "billing_terms": "Invoiced monthly by Northwind Finance Oy",
        "sla_credits": "Claim credits at credits@northwind.example",
        "notes": "Ask Nora Virtanen, +358 40 123 4567",
        "escalation": "Page the Northwind NOC: noc@northwind.example",
        "drain": "Windows agreed with Northwind ops, Tuesdays",
    },
    "rival_bid": {
        "site": "Oslo OSL-7 Rivalhall",
        "billing_terms": "Rival Cloud AS bills quarterly in advance",
        "sla_credits": "Credits through rita@rival.example",
        "notes": "Reference customer: Fjord AI",
        "escalation": "Rival duty phone +47 900 11 222",
        "drain": "Maintenance told by rival-support@rival.example",
    },
}
IDENTIFYING = [
    "Northwind",
    "Rival Cloud",
    *[text for seeds in SEEDS.values() for text in seeds.values()],
    "@northwind.example",
    "@rival.example",
]


def _seed(bid: Any, user: Any, seeds: dict[str, str], **terms: Any) -> None:
    fields = {k: seeds[k] for k in ("site", "billing_terms", "sla_credits", "notes")}
    bid_save_draft(bid=bid, user=user, data={**fields, **terms})
    raw = demo_answers(PROFILES["premium"], bid)
    raw["escalation.path"] = seeds["escalation"]
    raw["maintenance.drain_waits"] = {"value": "no", "comment": seeds["drain"]}
    answers_save(bid=bid, user=user, raw=raw)
    bid_submit(bid=bid, user=user)


@pytest.fixture
def seeded(world, buyer, provider, rival_provider):
    question_set_attach_default(capacity_request=world.request, user=buyer.user)
    _seed(world.bid, provider.user, SEEDS["bid"])
    # The rival is dearer but far better on support: the weights decide who ranks first.
    _seed(
        world.rival_bid,
        rival_provider.user,
        SEEDS["rival_bid"],
        price_per_gpu_hour=Decimal("6.000"),
        uptime_pct=Decimal("99.99"),
        node_replacement_hours=Decimal("2"),
        spares_count=2,
        spares_location="same_fabric_domain",
        coverage="24x7",
    )
    run = score(world.request)
    assert run.status == "done", run.error
    return world


def _absent(text: str) -> None:
    found = [s for s in IDENTIFYING if s.lower() in text.lower()]
    assert not found, f"identifying text shown: {found}"


def _compare(client: Any, req: Any, query: str = "?labels=anonymous") -> str:
    response = client.get(reverse("evaluation:request-compare", args=[req.pk]) + query)
    assert response.status_code == 200
    return response.content.decode()


def test_named_mode_shows_what_the_providers_wrote(seeded, buyer):
    html = _compare(buyer.client(), seeded.request, "")
    assert "Helsinki HEL-1" in html and "Rival Cloud AS bills quarterly" in html


def test_the_anonymised_page_identifies_no_provider(seeded, buyer):
    html = _compare(buyer.client(), seeded.request)
    _absent(html)
    assert HIDDEN in html and "Bid A" in html and "Bid B" in html
    assert "bid-" not in html.split('id="matrix"')[1].split("</thead>")[0]  # no bid ids either
    assert "2.400" in html  # the numbers to compare stay


def test_the_anonymised_api_identifies_no_provider(seeded, buyer):
    url = f"/api/v1/requests/{seeded.request.pk}/comparison/?labels=anonymous"
    body = token_client(buyer.user).get(url).json()
    _absent(json.dumps(body, ensure_ascii=False))
    assert [c["bid"] for c in body["columns"]] == [None, None]


def test_the_anonymised_exports_identify_no_provider(seeded, buyer):
    client = buyer.client()
    pk = seeded.request.pk
    csv_body = client.get(
        reverse("evaluation:request-compare-csv", args=[pk]) + "?labels=anonymous"
    )
    _absent(csv_body.content.decode("utf-8-sig"))
    xlsx = client.get(reverse("evaluation:request-compare-xlsx", args=[pk]) + "?labels=anonymous")
    book = load_workbook(io.BytesIO(xlsx.content))
    assert book.sheetnames == ["Cover", "Comparison", "Explanations"]
    for sheet in book.worksheets:  # the cover and the explanations too
        _absent(" ".join(str(c.value) for row in sheet.iter_rows() for c in row))


def _columns(buyer: Any, req: Any) -> list[tuple[str, float, int | None]]:
    """(label, list price, rank) per column, in the matrix's order (best ranked first)."""
    url = f"/api/v1/requests/{req.pk}/comparison/?labels=anonymous"
    body = token_client(buyer.user).get(url).json()
    price = next(r for g in body["groups"] for r in g["rows"] if r["key"] == "price")
    return [
        (col["name"], cell["value"], col["rank"])
        for col, cell in zip(body["columns"], price["cells"], strict=True)
    ]


COST_ONLY = {
    "effective_cost": 100,
    "fabric_placement": 0,
    "incident_sla": 0,
    "acceptance_terms": 0,
    "delivery_risk": 0,
}
SLA_ONLY = {**COST_ONLY, "effective_cost": 0, "incident_sla": 100}


def test_labels_stay_with_their_bid_whatever_the_weights(seeded, buyer):
    request_set_weights(capacity_request=seeded.request, user=buyer.user, weights=COST_ONLY)
    score(seeded.request)
    cheap_first = _columns(buyer, seeded.request)
    request_set_weights(capacity_request=seeded.request, user=buyer.user, weights=SLA_ONLY)
    score(seeded.request)
    support_first = _columns(buyer, seeded.request)
    # The ranking flips with the weights...
    assert [c[0] for c in cheap_first] == ["Bid A", "Bid B"]
    assert [c[0] for c in support_first] == ["Bid B", "Bid A"]
    # ...and "Bid A" is Northwind's bid (first submitted, $2.40) both times.
    assert {c[0]: c[1] for c in cheap_first} == {c[0]: c[1] for c in support_first}
    assert {c[0]: c[1] for c in support_first}["Bid A"] == 2.4


def test_a_withdrawal_renames_no_other_bid(seeded, buyer, provider):
    bid_withdraw(bid=seeded.bid, user=provider.user)
    score(seeded.request)
    assert [c[0] for c in _columns(buyer, seeded.request)] == ["Bid B"]


def test_named_columns_link_to_the_providers_scorecards_and_anonymised_ones_do_not(
    seeded, buyer, provider, rival_provider
):
    named = _compare(buyer.client(), seeded.request, "")
    for org in (provider.org, rival_provider.org):
        assert reverse("scorecards:provider-scorecard", args=[org.pk]) in named
    assert "/scorecard/" not in _compare(buyer.client(), seeded.request)
