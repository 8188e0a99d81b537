"""The agreed share of a degraded S2 that counts as downtime: edited on the terms form (the
buyer), shown on the terms page to both parties, checked against the downtime severities."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.contracts.test_terms_pages import _with_availability

pytestmark = pytest.mark.django_db


def test_the_buyer_agrees_a_share_and_both_parties_read_it(fx, buyer, provider):
    url = reverse("contracts:terms-edit", args=[fx.request.pk])
    form = buyer.client().get(url).content.decode()
    assert "Degraded (S2) counts as downtime at (% of its duration)" in form
    detail = reverse("contracts:terms-detail", args=[fx.request.pk])
    assert "not downtime (the job runs on)" in buyer.client().get(detail).content.decode()
    version = fx.terms.version
    response = buyer.client().post(url, _with_availability(fx.terms, degraded_downtime_pct="50"))
    assert response.status_code == 302
    fx.terms.refresh_from_db()
    assert str(fx.terms.degraded_downtime_pct) == "50.0" and fx.terms.version == version + 1
    assert fx.terms.snapshot()["degraded_downtime_pct"] == "50.0"
    for party in (buyer, provider):
        html = party.client().get(detail).content.decode()
        assert "50.0 % of an S2's duration counts as downtime" in html


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"degraded_downtime_pct": "120"}, "100"),
        (
            {"degraded_downtime_pct": "50", "downtime_severities": ["S1", "S2", "S3"]},
            "S2 is ticked as downtime, which counts all of it",
        ),
    ],
)
def test_a_share_that_cannot_hold_is_refused_by_field(fx, buyer, changes, words):
    url = reverse("contracts:terms-edit", args=[fx.request.pk])
    response = buyer.client().post(url, _with_availability(fx.terms, **changes))
    assert response.status_code == 200
    assert words in " ".join(response.context["form"].errors["degraded_downtime_pct"])
