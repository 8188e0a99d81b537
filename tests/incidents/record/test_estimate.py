"""The provider's repair estimate in the agreed format: cause class from a fixed list, parts,
an ETA in UTC that is not in the past, a confidence. Every revision is kept, the page shows the
latest and the history, and the buyer's members are notified of each."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from audit.models import AuditEntry
from core.lifecycle import MoveRefused
from incidents import services
from incidents.services import record
from notices.choices import Event
from notices.models import Notice

pytestmark = pytest.mark.django_db
OPENED = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def incident(analysed, buyer) -> Any:
    return services.incident_open(failed_run=analysed, user=buyer.user, now=OPENED)


def _post(incident: Any, provider: Any, **values: Any) -> Any:
    fields = {
        "cause_class": "gpu", "parts": ["H200 SXM5 GPU", "thermal pads"],
        "eta": OPENED + timedelta(hours=6), "confidence": "medium",
        "now": OPENED + timedelta(minutes=30), **values,
    }  # fmt: skip
    return record.estimate_post(incident=incident, user=provider.user, **fields)


def test_each_revision_is_kept_and_the_buyer_hears_of_it(
    incident, provider, buyer, buyer_colleague, rival_provider
) -> None:
    first = _post(incident, provider)
    second = _post(
        incident, provider, cause_class="nvlink", parts=["NVSwitch tray"], confidence="high",
        eta=OPENED + timedelta(hours=9), now=OPENED + timedelta(hours=2),
    )  # fmt: skip
    assert (first.revision, second.revision) == (1, 2)
    assert incident.estimates.count() == 2
    heard = Notice.objects.filter(event=Event.REPAIR_ESTIMATE)
    assert set(heard.values_list("recipient__username", flat=True)) == {
        buyer.user.username,
        buyer_colleague.user.username,
    }
    assert set(heard.values_list("key", flat=True)) == {
        f"incident-estimate:{incident.pk}:1",
        f"incident-estimate:{incident.pk}:2",
    }
    body = heard.filter(key__endswith=":2").first().body
    assert "NVLink / NVSwitch" in body and "NVSwitch tray" in body
    revised = AuditEntry.objects.filter(action="incident.estimate").order_by("seq").last()
    assert revised.before["cause_class"] == "gpu" and revised.after["cause_class"] == "nvlink"


def test_the_page_shows_the_latest_and_the_history(incident, provider, buyer) -> None:
    _post(incident, provider)
    _post(incident, provider, cause_class="nvlink", parts=["NVSwitch tray"])
    html = buyer.client().get(reverse("incidents:incident-detail", args=[incident.pk]))
    text = html.content.decode()
    latest = text[text.index('id="estimate-latest"') : text.index('id="estimate-history"')]
    assert "NVLink / NVSwitch" in latest and "r2" in latest
    history = text[text.index('id="estimate-history"') :]
    assert "r1" in history and "H200 SXM5 GPU, thermal pads" in history
    assert 'id="estimate-form"' not in text  # the buyer does not post estimates


def test_only_the_provider_posts_an_estimate(incident, buyer) -> None:
    with pytest.raises(MoveRefused, match="Only the provider"):
        _post(incident, buyer)


def test_an_eta_in_the_past_and_an_unknown_cause_are_named(incident, provider) -> None:
    with pytest.raises(ValidationError) as caught:
        _post(incident, provider, cause_class="cosmic rays", eta=OPENED)
    errors = caught.value.message_dict
    assert "“cosmic rays” is not a cause class" in errors["cause_class"][0]
    assert "Switch / fabric" in errors["cause_class"][0]
    assert "The ETA 2025-03-01 12:00 UTC is in the past" in errors["eta"][0]
    assert not incident.estimates.exists()


def test_a_refused_estimate_keeps_what_was_typed(incident, provider) -> None:
    url = reverse("incidents:estimate-post", args=[incident.pk])
    past = (timezone.now() - timedelta(days=1)).strftime("%Y-%m-%d %H:%M")
    response = provider.client().post(
        url,
        {"cause_class": "psu", "parts": "PSU 2 of node-17\nfan module", "eta": past,
         "confidence": "low", "note": "vendor part on order"},
    )  # fmt: skip
    html = response.content.decode()
    assert response.status_code == 200
    assert "“psu” is not a cause class" in html
    assert f"The ETA {past} UTC is in the past" in html
    assert "PSU 2 of node-17\nfan module" in html and "vendor part on order" in html
    assert f'value="{past}' in html


def test_a_good_estimate_from_the_page(incident, provider) -> None:
    url = reverse("incidents:estimate-post", args=[incident.pk])
    eta = (timezone.now() + timedelta(hours=5)).strftime("%Y-%m-%d %H:%M")
    response = provider.client().post(
        url, {"cause_class": "nic", "parts": "ConnectX-7 HCA", "eta": eta, "confidence": "high"}
    )
    assert response.status_code == 302
    estimate = incident.estimates.get()
    assert estimate.parts == ["ConnectX-7 HCA"] and f"{estimate.eta:%Y-%m-%d %H:%M}" == eta
