"""The demo's pilot, observed records, served responses and webhook endpoint, as a newcomer
signed in as `alice` finds them after `seed_demo`; a second run changes nothing."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core.management import call_command
from django.http import HttpRequest
from django.test import Client
from django.urls import reverse

from acceptance.models import Evidence, Pilot, Reservation
from audit.models import AuditEntry
from demo.delivery import DEMO_TITLE as IN_SERVICE
from demo.outcomes import WEBHOOK_URL
from demo.seed import DEMO_PASSWORD, REQUEST_TITLE
from inference.models import ServedResponsesFile
from observed.models import ObservedUpload
from tests.incidents.helpers import media_root
from webhooks.models import Delivery, Endpoint

pytestmark = pytest.mark.django_db
__all__ = ["media_root"]


def _seeded(capture: Any) -> None:
    with capture(execute=True):
        call_command("seed_demo", verbosity=0)


def _counts() -> tuple[int, ...]:
    return (
        Pilot.objects.count(),
        Evidence.objects.count(),
        ObservedUpload.objects.count(),
        ServedResponsesFile.objects.count(),
        Endpoint.objects.count(),
        AuditEntry.objects.count(),
    )


def _alice() -> Client:
    client = Client()
    assert client.login(request=HttpRequest(), username="alice", password=DEMO_PASSWORD)
    return client


def _section(html: str, anchor: str) -> str:
    start = html.index(f'id="{anchor}"')
    return html[start : html.index("</section>", start)]


def test_the_demo_seeds_its_extras_once(django_capture_on_commit_callbacks: Any) -> None:
    _seeded(django_capture_on_commit_callbacks)
    counts = _counts()
    _seeded(django_capture_on_commit_callbacks)
    assert counts == _counts()
    assert counts[:5] == (1, counts[1], 6, 1, 1) and counts[1] > 0


def test_the_comparison_shows_aurora_s_pilot_figures_and_invites_northwind(
    django_capture_on_commit_callbacks: Any,
) -> None:
    _seeded(django_capture_on_commit_callbacks)
    pilot = Pilot.objects.get()
    assert pilot.bid.provider.name == "Aurora GPU Cloud"
    assert {e.state for e in Evidence.objects.filter(run__pilot=pilot)} == {"parsed"}
    compare = reverse("evaluation:request-compare", args=[pilot.bid.request_id])
    pilots = _section(_alice().get(compare).content.decode(), "pilots")
    aurora = pilots[pilots.index('data-bid="Aurora GPU Cloud"') :]
    aurora = aurora[: aurora.index('class="pilot-bid"') if 'class="pilot-bid"' in aurora else None]
    assert reverse("pilots:detail", args=[pilot.pk]) in aurora
    assert re.search(r"verified</span> <strong>19[89](\.\d+)? Gb/s", aurora), aurora
    northwind = pilots[pilots.index('data-bid="Northwind Compute"') :]
    assert "Invite to a pilot" in northwind
    assert pilot.bid.request.title == REQUEST_TITLE


def test_the_in_service_reservation_charts_what_its_workload_observed(
    django_capture_on_commit_callbacks: Any,
) -> None:
    _seeded(django_capture_on_commit_callbacks)
    reservation = Reservation.objects.get(request__title=IN_SERVICE)
    assert set(ObservedUpload.objects.values_list("state", flat=True)) == {"done"}
    client = _alice()
    page = client.get(reverse("observed:page", args=[reservation.pk])).content.decode()
    table = _section(page, "observed-capacities-card")
    in_use = re.findall(r'<td class="num">([\d.]+)</td></tr>', table)
    assert any(float(value) > 0 for value in in_use), table  # the jobs ran in the term
    served = ServedResponsesFile.objects.get(reservation=reservation)
    assert served.state == "parsed"
    detail = client.get(reverse("inference:served-detail", args=[served.pk])).content.decode()
    ttft = _section(detail, "served-reading").split('id="served-ttft_p50_ms"', 1)[1]
    assert "Time to first token" in ttft and re.search(r'<td class="num">[\d.]+ ms</td>', ttft)


def test_the_webhook_endpoint_is_disabled_and_never_sent(
    django_capture_on_commit_callbacks: Any,
) -> None:
    _seeded(django_capture_on_commit_callbacks)
    endpoint = Endpoint.objects.get()
    assert (endpoint.url, endpoint.active) == (WEBHOOK_URL, False)
    assert endpoint.organization.name == "Helix Labs"
    assert not Delivery.objects.exists()
    page = _alice().get(reverse("webhooks:list")).content.decode()
    assert "hooks.helix-labs.invalid" in page
