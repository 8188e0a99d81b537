"""The change pages as each party reads them: the provider announces from a form that keeps
what was typed when refused; the buyer reads the canary's verdict and the checks beside the
accepted burn-in's, and objects; the reservation's delivery panel lists the change."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from acceptance.models import Evidence
from delivery.models import PlannedChange
from incidents.models import ChangeStatus
from tests.acceptance.burnin.helpers import DATA
from tests.bids.test_tenancy import client_for
from tests.delivery.changes.helpers import PASSING, announce, change_world, upload_canary

pytestmark = pytest.mark.django_db


@pytest.fixture
def cw(buyer, provider, rival_provider, django_capture_on_commit_callbacks):
    return change_world(buyer, provider, django_capture_on_commit_callbacks)


def test_the_provider_announces_and_a_refusal_keeps_what_was_typed(cw, request):
    client = client_for("provider", request)
    url = reverse("delivery:change-new", args=[cw.reservation.pk])
    form = {
        "window": cw.window.pk, "kind": "firmware", "component": "HCA firmware",
        "from_version": "28.39.1002", "to_version": "28.41.1000",
        "nodes": "gpu-a01 gpu-a02", "canary_nodes": "gpu-a01 gpu-a02",
    }  # fmt: skip
    page = client.post(url, form).content.decode()
    assert "fewer nodes than the change reaches (2)" in page and "28.41.1000" in page
    assert not PlannedChange.objects.exists()
    response = client.post(url, {**form, "canary_nodes": "gpu-a01"})
    change = PlannedChange.objects.get()
    assert response["Location"] == reverse("delivery:change-detail", args=[change.pk])
    panel = client_for("buyer", request).get(
        reverse("burnin:reservation-detail", args=[cw.reservation.pk])
    )
    assert "HCA firmware 28.39.1002 → 28.41.1000" in panel.content.decode()


def test_the_buyer_reads_a_passing_canary_and_objects_with_a_reason(
    cw, provider, request, django_capture_on_commit_callbacks
):
    change = announce(cw, provider)
    upload_canary(change, provider.user, PASSING, django_capture_on_commit_callbacks)
    buyer = client_for("buyer", request)
    url = reverse("delivery:change-detail", args=[change.pk])
    page = buyer.get(url).content.decode()
    assert 'id="verdict"' in page and "passed" in page
    assert 'id="comparison"' in page and "Accepted burn-in" in page
    assert 'id="object-form"' in page and 'id="upload"' not in page
    answer = reverse("delivery:change-answer", args=[change.pk])
    kept = buyer.post(answer, {"decision": "object", "reason": ""}).content.decode()
    assert "Say why you object" in kept
    buyer.post(answer, {"decision": "object", "reason": "Mid-epoch that night."})
    change.entry.refresh_from_db()
    assert change.entry.status == ChangeStatus.DECLINED
    provider_page = client_for("provider", request).get(url).content.decode()
    assert "Mid-epoch that night." in provider_page and 'id="upload"' in provider_page


def test_a_file_from_the_buyer_is_refused_by_name_and_not_stored(cw, provider, request):
    """The canary is the provider's proof: the buyer's upload is refused, file by file, with
    the reason, and nothing is stored."""
    change = announce(cw, provider)
    path = DATA / PASSING[0][0]
    upload = SimpleUploadedFile(path.name, path.read_bytes())
    url = reverse("delivery:canary-upload", args=[change.pk])
    response = client_for("buyer", request).post(url, {"file": upload}, follow=True)
    page = response.content.decode()
    assert f"{path.name}:" in page and "provider" in page.lower()
    assert not Evidence.objects.filter(run__canary=change.canary).exists()
