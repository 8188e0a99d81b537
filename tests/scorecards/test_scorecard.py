"""The provider scorecard: the provider sees every reservation it was awarded; each buyer sees its
own reservations with that provider only; anyone else gets a 404."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.urls import reverse
from django.utils import timezone

from acceptance.models import BurnInRun, Check, Reservation
from bids.services import bid_submit
from incidents.services.opening import incident_open_signal
from tests.bids.test_tenancy import HIDDEN, OK
from tests.conftest import World
from tests.factories import BidFactory, CapacityRequestFactory, InvitationFactory
from tests.incidents.helpers import accept, term_from

pytestmark = pytest.mark.django_db


def _open(reservation: Any, user: Any, severity: str, *, hours_ago: float = 1) -> Any:
    at = timezone.now() - timedelta(hours=hours_ago)
    return incident_open_signal(
        reservation=reservation, user=user, severity=severity, nodes="gpu-a01",
        window_start=at - timedelta(minutes=5), signal="alert", summary="ECC errors on gpu-a01",
        now=at,
    )  # fmt: skip


def _rival_buyer_reservation(outsider: Any, provider: Any) -> Any:
    """The outsider's buyer organisation contracts the same provider on its own request."""
    req = CapacityRequestFactory(buyer=outsider.org, sealed=False, title="Other buyer's run")
    InvitationFactory(request=req, provider=provider.org)
    bid = BidFactory(request=req, provider=provider.org)
    bid_submit(bid=bid, user=provider.user)
    bid.refresh_from_db()
    reservation = accept(World(request=req, bid=bid, rival_bid=bid), outsider, provider).reservation
    return term_from(reservation, timezone.now() - timedelta(days=3))


@pytest.fixture
def card_world(world, buyer, provider, outsider) -> Any:
    # Accepted three days ago: the incidents below lie inside the term.
    mine = term_from(accept(world, buyer, provider).reservation, timezone.now() - timedelta(days=3))
    _open(mine, provider.user, "S1", hours_ago=48)  # long past its clocks: two breaches
    _open(mine, provider.user, "S3")
    theirs = _rival_buyer_reservation(outsider, provider)
    for sev in ("S1", "S2", "S2"):
        _open(theirs, provider.user, sev)
    return mine, theirs


def test_the_provider_sees_every_customer_and_each_buyer_only_its_own(
    card_world, buyer, provider, outsider
):
    url = reverse("scorecards:provider-scorecard", args=[provider.org.pk])
    mine = buyer.client().get(url)
    text = mine.content.decode()
    assert "Other buyer" not in text and "Other buyer's run" not in text
    assert mine.context["card"].incidents == {"S1": 1, "S2": 0, "S3": 1}
    assert mine.context["card"].breaches == 2  # the S1's response and restore clocks

    theirs = outsider.client().get(url).context["card"]
    assert theirs.incidents == {"S1": 1, "S2": 2, "S3": 0}
    assert [x.reservation.request.title for x in theirs.lines] == ["Other buyer's run"]

    everything = provider.client().get(url)
    assert everything.context["card"].incidents == {"S1": 2, "S2": 2, "S3": 1}
    assert "Other Buyer" in everything.content.decode()  # the provider knows its customers


def test_first_try_counts_a_single_passing_run_only(card_world, buyer, provider):
    mine, theirs = card_world
    BurnInRun.objects.create(reservation=theirs, label="Second attempt")
    run = mine.runs.get()
    run.checked_version = run.evidence_version
    run.save()
    Check.objects.create(
        run=run, version=run.evidence_version, position=1, name="NCCL all_reduce busbw",
        group="nccl", status="fail", mandatory=True,
    )  # fmt: skip
    card = provider.client().get(reverse("scorecards:provider-scorecard", args=[provider.org.pk]))
    lines = {x.reservation.pk: x for x in card.context["card"].lines}
    assert lines[mine.pk].first_try is True and lines[mine.pk].failed_checks == 1
    assert lines[theirs.pk].first_try is False and lines[theirs.pk].runs == 2


def test_a_buyer_with_only_a_bid_sees_the_empty_card(world, buyer, rival_provider):
    response = buyer.client().get(
        reverse("scorecards:provider-scorecard", args=[rival_provider.org.pk])
    )
    assert response.status_code == OK
    assert "no reservations with Rival Cloud yet" in response.content.decode()


def test_an_unknown_or_buyer_org_id_is_a_404(world, buyer, provider):
    client = provider.client()
    assert (
        client.get(reverse("scorecards:provider-scorecard", args=[buyer.org.pk])).status_code
        == HIDDEN
    )
    assert client.get(reverse("scorecards:provider-scorecard", args=[999999])).status_code == HIDDEN


def test_csv_has_the_buyers_own_rows(card_world, buyer, provider):
    body = (
        buyer.client()
        .get(reverse("scorecards:provider-scorecard-csv", args=[provider.org.pk]))
        .content.decode()
    )
    assert body.splitlines()[0].startswith("Request,Buyer,")
    assert len(body.splitlines()) == 2 and "Other buyer's run" not in body


def test_queries_stay_bounded_by_the_page_not_the_reservations(
    card_world, provider, outsider, django_assert_max_num_queries
):
    """Delivered figures are worked per reservation shown, so a full page costs the same
    whether the provider has ten reservations or twelve."""
    from scorecards.selectors import PAGE_SIZE

    while Reservation.objects.filter(bid__provider=provider.org).count() < PAGE_SIZE:
        _open(_rival_buyer_reservation(outsider, provider), provider.user, "S3")
    client = provider.client()
    url = reverse("scorecards:provider-scorecard", args=[provider.org.pk])
    client.get(url)
    with django_assert_max_num_queries(1000) as full_page:
        client.get(url)
    for _ in range(2):
        _open(_rival_buyer_reservation(outsider, provider), provider.user, "S1")
    with django_assert_max_num_queries(len(full_page)):
        response = client.get(url)
    assert len(response.context["card"].lines) == PAGE_SIZE + 2
    assert "page 1 of 2" in response.content.decode()


def test_delivered_figures_match_the_delivery_report_and_the_prediction_at_award(
    world, buyer, provider
):
    from delivery.selectors import delivery_for
    from evaluation.services import request_score
    from incidents.services.opening import incident_open_signal as open_signal

    today = timezone.now().date()
    type(world.request).objects.filter(pk=world.request.pk).update(
        reservation_start=today - timedelta(days=10), reservation_end=today + timedelta(days=20)
    )
    world.request.refresh_from_db()
    assert request_score(capacity_request=world.request).status == "done"
    reservation = accept(world, buyer, provider).reservation
    Reservation.objects.filter(pk=reservation.pk).update(
        clock_starts_at=timezone.now() - timedelta(days=5)
    )
    reservation.refresh_from_db()
    incident = open_signal(
        reservation=reservation, user=provider.user, severity="S1", nodes="gpu-a01",
        window_start=timezone.now() - timedelta(hours=2), signal="alert", summary="Fabric down",
        now=timezone.now() - timedelta(hours=2),
    )  # fmt: skip
    incident.restored_at = timezone.now() - timedelta(hours=1)
    incident.save(update_fields=["restored_at"])

    card = buyer.client().get(reverse("scorecards:provider-scorecard", args=[provider.org.pk]))
    (line,) = card.context["card"].page
    report = delivery_for(reservation=reservation).report
    assert line.realised.credits == report.credits.value
    assert line.realised.cost_per_useful == report.cost_per_useful_gpu_hour.value
    assert line.realised.availability_pct < 100
    assert line.realised.predicted is not None and line.realised.predicted.cost_per_useful > 0
    text = card.content.decode()
    assert "Predicted at award" in text and "Lost time:" in text
    assert card.context["card"].realised_mtbf_hours is not None  # one downtime incident


def test_the_api_gives_the_buyer_its_own_rows_with_the_delivered_figures(
    card_world, buyer, provider
):
    body = buyer.client().get(f"/api/v1/providers/{provider.org.pk}/scorecard/").json()
    assert body["scope"] == "your reservations" and body["reservations"] == 1
    assert body["incidents"] == {"S1": 1, "S2": 0, "S3": 1}
    (line,) = body["lines"]
    assert line["buyer"] == buyer.org.name
    assert "availability_pct" in line and line["clock_breaches"] == 2


def test_paid_comes_from_the_reconciled_bills_once_they_cover_every_month(buyer, provider):
    from billing.models import UsageState, UsageUpload
    from delivery.selectors import delivery_for
    from scorecards.realised import realised_for
    from tests.delivery.helpers import utc
    from tests.delivery.test_worked_example import build

    reservation = build(buyer, provider)
    as_of = utc(4, 1)

    def bill(months: list[str], allowed: str) -> None:
        UsageUpload.objects.create(
            reservation=reservation, file="usage.csv", original_name="usage.csv", size=1,
            sha256="0" * 64, state=UsageState.DONE,
            totals={"allowed": allowed, "credit_months": months},
        )  # fmt: skip

    bill(["2026-01", "2026-02"], "90000.00")
    partial = realised_for(reservation, now=as_of, predicted=None)
    assert partial.paid == delivery_for(reservation=reservation, now=as_of).report.paid.value
    assert "do not cover 2026-03 yet" in partial.reasons[-1]

    bill(["2026-03"], "40000.00")
    full = realised_for(reservation, now=as_of, predicted=None)
    assert full.paid == Decimal("130000.00") - full.credits
    assert "2 reconciled bill(s) allow" in full.reasons[-1]


def test_the_realised_cost_prints_its_figure_and_working_and_never_goes_negative(buyer, provider):
    """A bill far smaller than the credits the incidents earn: the scorecard applies the credits
    up to the bill, prints the realised price the working reaches and says what to check."""
    import csv
    import io

    from billing.models import UsageState, UsageUpload
    from tests.delivery.test_worked_example import build

    reservation = build(buyer, provider)
    UsageUpload.objects.create(
        reservation=reservation, file="usage.csv", original_name="usage.csv", size=1,
        sha256="0" * 64, state=UsageState.DONE,
        totals={"allowed": "760.00", "credit_months": ["2026-01", "2026-02", "2026-03"]},
    )  # fmt: skip
    client = buyer.client()
    page = client.get(reverse("scorecards:provider-scorecard", args=[provider.org.pk]))
    (line,) = page.context["card"].page
    realised = line.realised
    assert realised.paid == 0 and realised.credits == Decimal("760.00")
    assert realised.cost.value == realised.cost_per_useful == Decimal("0.0000")
    assert realised.cost.formula == "$0.00 ÷ 68,784.00 useful GPU-h = $0.0000 / GPU-h"
    html = page.content.decode()
    assert f">{realised.cost.text}</td>" in html and realised.cost.formula in html
    assert "check the incidents of 2026-01, 2026-02" in html
    assert "-$" not in html and "−$" not in html
    body = client.get(reverse("scorecards:provider-scorecard-csv", args=[provider.org.pk]))
    (header, row) = list(csv.reader(io.StringIO(body.content.decode())))
    cost = row[header.index("Realised USD per useful GPU-hour")]
    assert Decimal(cost) == 0 and Decimal(row[header.index("Credits (USD)")]) == 760
