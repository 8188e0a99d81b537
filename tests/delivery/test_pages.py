"""The Delivery panel and the maintenance pages, as the parties use them."""

from __future__ import annotations

import csv
import io
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from openpyxl import load_workbook

from delivery import services
from delivery.models import MaintenanceWindow
from incidents.services import incident_mark
from incidents.services.opening import incident_open_signal
from notices.models import Notice
from tests.delivery.helpers import example_reservation, utc

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture
def example(buyer, provider):
    return example_reservation(buyer, provider)


def page(client, reservation) -> str:
    return client.get(reverse("burnin:reservation-detail", args=[reservation.pk])).content.decode()


def test_before_acceptance_the_panel_says_when_the_term_starts(world, buyer, provider):
    from tests.incidents.helpers import accept

    reservation = accept(world, buyer, provider).reservation
    reservation.status, reservation.clock_starts_at = "pending", None
    reservation.save()
    reservation.decision.delete()
    html = page(buyer.client(), reservation)
    assert (
        'id="delivery-empty"' in html and "the term starts when the buyer accepts" in html.lower()
    )
    assert "plotly.min.js" not in html


def test_both_parties_see_the_same_months_with_their_formulas(example, buyer, provider):
    incident_open_signal(
        reservation=example, user=provider.user, severity="S1", nodes="gpu-01",
        window_start=utc(1, 10, 8), signal="alert", summary="Down", now=utc(1, 10, 8),
    )  # fmt: skip
    pages = [page(buyer.client(), example), page(provider.client(), example)]
    for html in pages:
        assert "2026-01" in html and "2026-03" in html
        assert "1 − " in html and "scheduled node-h" in html  # the availability formula
        assert "vendor/plotly/plotly.min.js" in html and "delivery-timeline-data" in html
        assert "gpu-01" in html and "node 2" in html  # a lane seen, then placeholders
        assert "counts 0 lost GPU-hours until its page has: last checkpoint" in html
    tables = [h[h.index('id="delivery-months"') :] for h in pages]
    assert tables[0][: tables[0].index("</table>")] == tables[1][: tables[1].index("</table>")]


def test_the_page_query_count_does_not_grow_with_incidents(
    example, buyer, provider, django_assert_max_num_queries
):
    def open_one(day: int) -> None:
        incident = incident_open_signal(
            reservation=example, user=provider.user, severity="S3", nodes=f"gpu-0{day % 4 + 1}",
            window_start=utc(2, day, 1), signal="alert", summary="x", now=utc(2, day, 1),
        )  # fmt: skip
        # Restored: its lost time is worked from the reservation's shape, once per page.
        incident_mark(incident=incident, user=provider.user, what="restored", now=utc(2, day, 3))

    open_one(1)
    client = buyer.client()
    with django_assert_max_num_queries(1000) as few:
        page(client, example)
    for day in range(2, 12):
        open_one(day)
    with django_assert_max_num_queries(len(few)):
        assert "2026-02" in page(client, example)


def test_the_provider_announces_and_a_buyer_admin_agrees_to_short_notice(buyer, provider):
    reservation = example_reservation(buyer, provider)
    # A term that is running now, so that maintenance can still be announced.
    reservation.request.reservation_end = timezone.now().date() + timedelta(days=30)
    reservation.request.save(update_fields=["reservation_end"])
    start = (timezone.now() + timedelta(hours=5)).strftime("%Y-%m-%d %H:00")
    end = (timezone.now() + timedelta(hours=7)).strftime("%Y-%m-%d %H:00")
    url = reverse("delivery:maintenance-new", args=[reservation.pk])
    response = provider.client().post(
        url, {"starts_at": start, "ends_at": end, "nodes": "gpu-01", "reason": "Swap a PSU"}
    )
    assert response.status_code == 302
    window = MaintenanceWindow.objects.get()
    assert window.short_notice and window.state == "awaiting"
    assert Notice.objects.filter(event="maintenance_announced", recipient=buyer.user).exists()
    html = page(buyer.client(), reservation)
    assert "short notice: counts as downtime" in html and "Agree to it" in html
    buyer.client().post(reverse("delivery:maintenance-agree", args=[window.pk]))
    window.refresh_from_db()
    assert window.state == "agreed" and window.agreed_by == buyer.user
    assert Notice.objects.filter(event="maintenance_agreed", recipient=provider.user).exists()


def test_a_buyer_requester_cannot_agree(buyer, provider, buyer_requester):
    reservation = example_reservation(buyer, provider)
    window = services.maintenance_announce(
        reservation=reservation, user=provider.user, starts_at=utc(3, 15, 2),
        ends_at=utc(3, 15, 6), reason="Firmware", now=utc(3, 14, 10),
    )  # fmt: skip
    buyer_requester.client().post(reverse("delivery:maintenance-agree", args=[window.pk]))
    window.refresh_from_db()
    assert window.agreed_at is None


@pytest.mark.parametrize(
    ("data", "field", "words"),
    [
        ({"starts_at": "2026-03-20 04:00", "ends_at": "2026-03-20 02:00"}, "ends_at",
         "must come after the start"),
        ({"starts_at": "2026-03-31 20:00", "ends_at": "2026-04-02 02:00"}, "ends_at",
         "inside the term"),
        ({"starts_at": "2026-03-20 02:00", "ends_at": "2026-03-20 04:00", "nodes": "bad node!"},
         "nodes", "is not a node label"),
        ({"starts_at": "yesterday", "ends_at": "2026-03-20 04:00"}, "starts_at",
         "Enter a valid date/time"),
    ],
)  # fmt: skip
def test_bad_windows_come_back_with_the_field_named_and_the_values_kept(
    example, provider, data, field, words, monkeypatch
):
    monkeypatch.setattr(services.timezone, "now", lambda: utc(3, 1))
    url = reverse("delivery:maintenance-new", args=[example.pk])
    response = provider.client().post(url, {"reason": "Firmware", **data})
    assert response.status_code == 200
    form = response.context["form"]
    assert any(words in e for e in form.errors[field]), form.errors
    assert data["starts_at"] in response.content.decode()
    assert not MaintenanceWindow.objects.exists()


def test_the_csv_and_xlsx_carry_the_monthly_table(example, buyer):
    client = buyer.client()
    body = client.get(reverse("delivery:availability-csv", args=[example.pk])).content
    rows = list(csv.reader(io.StringIO(body.decode("utf-8-sig"))))
    assert rows[0][:3] == ["Month", "Breaches", "Availability (%)"]
    assert [r[0] for r in rows[1:4]] == ["2026-01", "2026-02", "2026-03"]
    assert rows[1][2] == "100.000"
    data = client.get(reverse("delivery:availability-xlsx", args=[example.pk])).content
    sheet = load_workbook(io.BytesIO(data)).active
    assert sheet["A2"].value == "2026-01" and sheet["C2"].value == 100.0
