"""A disputed incident shows both parties' figures on the monthly statement (read back from the
PDF) and in the provider's scorecard exports, each saying whose figures the totals use."""

from __future__ import annotations

import csv
import io
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from openpyxl import load_workbook

from tests.annexes.test_statement import _generate, _text
from tests.incidents.test_incident_facts import NODES, _api, live_reservation

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


def _disputed_s1(buyer, provider):
    """The buyer's S1 on every node, 3 hours old and still open; the provider disputes it."""
    reservation = live_reservation(buyer, provider)
    opened = _api(buyer.user).post(
        f"/api/v1/reservations/{reservation.pk}/incidents/",
        {"severity": "S1", "signal": "slow-job", "nodes": NODES, "summary": "All ranks hang",
         "window_start": (timezone.now() - timedelta(hours=3)).isoformat()},
        format="json",
    )  # fmt: skip
    assert opened.status_code == 201, opened.content
    disputed = _api(provider.user).post(
        f"/api/v1/incidents/{opened.json()['id']}/dispute/",
        {"reason": "Our fabric was healthy; the job's own loader hung."},
        format="json",
    )
    assert disputed.status_code == 200, disputed.content
    return reservation, opened.json()["id"]


def test_the_statement_prints_both_figures_and_whose_the_totals_are(buyer, provider):
    reservation, incident_id = _disputed_s1(buyer, provider)
    period = f"{timezone.now():%Y-%m}"
    annex = _generate(reservation, buyer.user, period).annex
    assert annex is not None
    text = " ".join(_text(annex).split())
    assert "Disputed incidents: both figures" in text
    assert "the job's own loader hung" in text and "the buyer" in text
    assert "Buyer's figure" in text and "Provider's figure (used in the totals)" in text
    assert "The provider's figures: the disputed incidents are left out" in text
    # The provider leaves the S1 out (100 %); the buyer counts 3 h × 4 nodes down.
    snapshot_row = text[text.index("Availability", text.index("Each party's figures")) :]
    buyer_pct, provider_pct = snapshot_row.split()[1:5:2][:2]
    assert provider_pct == "100.000" and float(buyer_pct) < 100, snapshot_row[:80]
    assert f"{incident_id}" in text


def test_the_scorecard_exports_carry_both_figures(buyer, provider):
    _disputed_s1(buyer, provider)
    for client in (buyer.client(), provider.client()):
        body = client.get(reverse("scorecards:provider-scorecard-csv", args=[provider.org.pk]))
        assert body.status_code == 200
        header, row = list(csv.reader(io.StringIO(body.content.decode())))[:2]
        line = dict(zip(header, row, strict=True))
        assert line["Disputed incidents"] == "1"
        assert line["Totals use"] == "the provider's figures"
        assert float(line["Availability, provider's figure (%)"]) == 100.0
        assert float(line["Availability, buyer's figure (%)"]) < 100.0
        assert line["Availability to date (%)"] == line["Availability, provider's figure (%)"]
        assert float(line["Credits, buyer's figure (USD)"]) >= float(
            line["Credits, provider's figure (USD)"]
        )
    book = provider.client().get(
        reverse("scorecards:provider-scorecard-xlsx", args=[provider.org.pk])
    )
    sheet = load_workbook(io.BytesIO(book.content)).active
    header, row = [list(r) for r in sheet.iter_rows(max_row=2, values_only=True)]
    assert row[header.index("Totals use")] == "the provider's figures"


def test_the_scorecard_page_shows_both_figures_where_an_incident_is_disputed(buyer, provider):
    _disputed_s1(buyer, provider)
    for client in (buyer.client(), provider.client()):
        page = client.get(reverse("scorecards:provider-scorecard", args=[provider.org.pk]))
        assert page.status_code == 200
        text = " ".join(page.content.decode().split())
        assert "1 disputed: buyer 9" in text  # the buyer counts the S1 (under 100 %)
        assert "provider 100.000" in text and "shown: the provider's" in text
