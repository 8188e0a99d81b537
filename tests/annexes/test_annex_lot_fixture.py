"""A lot with its own fixture and terms: its reservation is measured against them, and its
contract annex prints them; a lot that shares the request's prints the request's."""

from __future__ import annotations

import io

import pytest
from django.urls import reverse
from pypdf import PdfReader

from acceptance.models import FixtureVersion, Reservation
from acceptance.services.fixtures import fixture_from_template, lot_fixture_own
from annexes.models import Annex, AnnexKind
from bids.choices import RequestStatus
from contracts.services.terms import lot_terms_own, terms_create
from engine.evidence.fixtures import DEFAULT_TEMPLATE
from evaluation.scenario_award import scenario_award
from evaluation.scenario_services import scenario_solve
from tests.evaluation.scenarios.world import cirrus, define, worked  # noqa: F401

pytestmark = pytest.mark.django_db


@pytest.fixture
def own_lot3(worked, buyer, provider, rival_provider, cirrus):  # noqa: F811
    """Lot 3 (inference) got its own single-node fixture and its own terms while a draft;
    Rival Cloud wins lots 1 and 2 on the request's, Northwind lot 3 on its own."""
    worked.status = RequestStatus.DRAFT
    worked.save(update_fields=["status"])
    fixture_from_template(capacity_request=worked, user=buyer.user, template=DEFAULT_TEMPLATE)
    terms_create(capacity_request=worked, user=buyer.user, template="training-24x7")
    lot3 = worked.lots.get(number=3)
    lot_fixture_own(lot=lot3, user=buyer.user, template="single-node-nvlink")
    lot_terms_own(lot=lot3, user=buyer.user)
    worked.status = RequestStatus.CLOSED
    worked.save(update_fields=["status"])
    scenario = define(
        worked,
        buyer.user,
        name="Two providers",
        max_share_pct=None,
        min_regions=None,
        excluded_providers=[cirrus.org.pk],
    )
    scenario = scenario_solve(scenario_id=scenario.pk, revision=scenario.revision)
    scenario_award(scenario=scenario, user=buyer.user)
    return worked


def _annex_text(client, req, reservation, capture) -> str:
    with capture(execute=True):
        client.post(
            reverse("annexes:generate", args=[req.pk]),
            {"kind": AnnexKind.CONTRACT, "reservation": reservation.pk},
        )
    annex = Annex.objects.get(reservation=reservation, kind=AnnexKind.CONTRACT)
    with annex.pdf.open("rb") as fh:
        reader = PdfReader(io.BytesIO(fh.read()))
    return " ".join(page.extract_text() for page in reader.pages).replace("\n", "")


def test_the_lots_reservation_is_measured_against_the_lots_own_fixture(own_lot3):
    lot3 = own_lot3.lots.get(number=3)
    by_lot = {r.lot.number: r for r in Reservation.objects.filter(request=own_lot3)}
    assert by_lot[3].fixture_version.fixture.lot == lot3
    assert by_lot[3].fixture_version.spec["template"] == "single-node-nvlink"
    assert by_lot[1].fixture_version.fixture.request == own_lot3


def test_the_lots_annex_prints_the_lots_own_fixture_and_terms(
    own_lot3, provider, rival_provider, django_capture_on_commit_callbacks
):
    lot_version = FixtureVersion.objects.get(fixture__lot__number=3, fixture__lot__request=own_lot3)
    request_version = FixtureVersion.objects.get(fixture__request=own_lot3)
    northwind = Reservation.objects.get(request=own_lot3, lot__number=3)
    text = _annex_text(provider.client(), own_lot3, northwind, django_capture_on_commit_callbacks)
    assert "lot 3's own" in text
    assert lot_version.spec_sha256 in text and request_version.spec_sha256 not in text
    assert "single-node-nvlink" in text
    assert "Terms revision 1 of lot 3's own" in text

    rival = Reservation.objects.get(request=own_lot3, lot__number=1)
    text = _annex_text(rival_provider.client(), own_lot3, rival, django_capture_on_commit_callbacks)
    assert request_version.spec_sha256 in text and lot_version.spec_sha256 not in text
    assert "Terms revision 1 of the request" in text
