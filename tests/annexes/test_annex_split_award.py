"""A split award's annexes: each reservation (lot and provider) has its own contract annex,
stating its lot; a provider sees, generates and downloads only its own reservations' annexes."""

from __future__ import annotations

import io

import pytest
from django.urls import reverse
from pypdf import PdfReader

from acceptance.models import Reservation
from acceptance.services.fixtures import fixture_from_template
from annexes.models import Annex, AnnexJobStatus, AnnexKind
from annexes.services import annex_request
from bids.choices import RequestStatus
from engine.evidence.fixtures import DEFAULT_TEMPLATE
from evaluation.scenario_award import scenario_award
from evaluation.scenario_services import scenario_solve
from evaluation.services import request_score
from tests.evaluation.scenarios.world import cirrus, define, worked  # noqa: F401

pytestmark = pytest.mark.django_db


@pytest.fixture
def split(worked, buyer, provider, rival_provider, cirrus):  # noqa: F811
    """Rival Cloud wins lots 1 and 2, Northwind lot 3 (Cirrus excluded, no share cap)."""
    fixture_from_template(capacity_request=worked, user=buyer.user, template=DEFAULT_TEMPLATE)
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


def _generate(client, req, reservation, capture):
    url = reverse("annexes:generate", args=[req.pk])
    data = {"kind": AnnexKind.CONTRACT}
    if reservation is not None:
        data["reservation"] = reservation.pk
    with capture(execute=True):
        return client.post(url, data, follow=True)


def _text(annex: Annex) -> str:
    with annex.pdf.open("rb") as fh:
        reader = PdfReader(io.BytesIO(fh.read()))
    return " ".join(page.extract_text() for page in reader.pages).replace("\n", " ")


def test_the_buyer_sees_one_contract_annex_per_reservation(split, buyer):
    page = buyer.client().get(reverse("annexes:list", args=[split.pk])).content.decode()
    for reservation in Reservation.objects.filter(request=split):
        assert f'id="annex-contract-{reservation.pk}"' in page
    assert 'id="annex-comparison"' in page


def test_a_provider_generates_and_reads_only_its_own_lots_annex(
    split, provider, rival_provider, django_capture_on_commit_callbacks
):
    own = Reservation.objects.get(request=split, bid__provider=provider.org)
    rivals = Reservation.objects.filter(request=split, bid__provider=rival_provider.org)
    client = provider.client()
    page = client.get(reverse("annexes:list", args=[split.pk])).content.decode()
    assert f'id="annex-contract-{own.pk}"' in page
    assert "Rival Cloud" not in page
    assert all(f'id="annex-contract-{r.pk}"' not in page for r in rivals)

    _generate(client, split, own, django_capture_on_commit_callbacks)
    annex = Annex.objects.get(reservation=own, kind=AnnexKind.CONTRACT)
    text = _text(annex)
    assert "3: Inference" in text and "Northwind" in text
    assert "Rival Cloud" not in text

    # The rival's reservation is not Northwind's to generate, and its annex not Northwind's to
    # read; Rival Cloud cannot read Northwind's.
    refused = client.post(
        reverse("annexes:generate", args=[split.pk]),
        {"kind": AnnexKind.CONTRACT, "reservation": rivals[0].pk},
    )
    assert refused.status_code == 404
    download = reverse("annexes:download", args=[annex.pk])
    assert rival_provider.client().get(download).status_code == 404
    assert client.get(download).status_code == 200


def test_a_split_award_names_the_reservation_to_generate(
    split, buyer, django_capture_on_commit_callbacks
):
    response = _generate(buyer.client(), split, None, django_capture_on_commit_callbacks)
    assert "name the reservation" in response.content.decode()
    assert not Annex.objects.filter(request=split).exists()


def test_the_summary_pdf_compares_the_scenarios_and_names_the_one_awarded(
    split, buyer, django_capture_on_commit_callbacks
):
    request_score(capacity_request=split)
    define(split, buyer.user, name="Cap 75 %, two regions")
    scenario = split.award_scenarios.get(name="Cap 75 %, two regions")
    scenario_solve(scenario_id=scenario.pk, revision=scenario.revision)
    job = _generate_kind(
        split, buyer.user, AnnexKind.COMPARISON, django_capture_on_commit_callbacks
    )
    text = " ".join(_text(job.annex).split())
    # The ranking reads each bid whole: on a request in lots it says why bids fall short.
    ranking = text.split("1. Ranking")[-1].split("2. ")[0]
    assert "This request is in 3 lots" in ranking
    assert "the award scenarios below split the lots between the bids" in ranking
    part = text.split("Award scenarios")[-1]
    assert "Two providers (awarded)" in part
    assert "$675,532.80" in part and "$677,606.40" in part  # each scenario's cost
    scenario.refresh_from_db()
    useful = float(scenario.result["figures"]["useful_gpu_hours"])
    assert f"{useful:,.1f}" in part  # the worked scenario's useful GPU-hours
    assert "Cirrus Compute" in part  # the worked allocation's second provider on lot 2
    assert "$2,073.60" in part  # what the 75 % cap costs


def _generate_kind(req, user, kind, capture):
    with capture(execute=True):
        job = annex_request(capacity_request=req, kind=kind, user=user)
    job.refresh_from_db()
    assert job.status == AnnexJobStatus.DONE, job.error
    return job
