"""A job torchrun restarted (`--max-restarts 1`), uploaded as a provider would: the page and the
API head with the failure that ended the job and list attempt 0's beneath it; "first ever" turns
that around. Shared evidence is low, with the other candidates on the page. Analyses stored in
the old owner words read in the handoff terms' words."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from api.services import token_create
from incidents import services
from incidents.models import FailedRunState, Incident
from tests.incidents.helpers import tar_bytes

pytestmark = pytest.mark.django_db
RESTART = Path(__file__).resolve().parents[1] / "data" / "failures" / "realruns" / "restart"


class Member:
    def __init__(self, name: str, data: bytes) -> None:
        self.name, self.data = name, data


def _upload(accepted: Any, provider: Any, capture: Any) -> Any:
    members = [Member(p.relative_to(RESTART).as_posix(), p.read_bytes())
               for p in sorted(RESTART.rglob("*")) if p.is_file()]  # fmt: skip
    with capture(execute=True):  # the analysis task runs once the upload commits
        run = services.failed_run_upload(
            reservation=accepted.reservation,
            user=provider.user,
            uploads=[SimpleUploadedFile("restart.tar.gz", tar_bytes(members))],
        )
    run.refresh_from_db()
    assert run.state == FailedRunState.ANALYSED, run.error
    return run


def _api(role: Any) -> Any:
    from django.test import Client

    return Client(HTTP_AUTHORIZATION=f"Token {token_create(user=role.user, name='ci')[1]}")


def test_the_page_heads_with_the_ending_failure_and_lists_attempt_0(
    accepted, provider, django_capture_on_commit_callbacks
) -> None:
    run = _upload(accepted, provider, django_capture_on_commit_callbacks)
    url = reverse("incidents:failed-run-detail", args=[run.pk])
    html = provider.client().get(url).content.decode()
    assert "The failure that ended the job, in attempt 1 of 2" in html
    assert "<strong>rank 6</strong>" in html and "FloatingPointError" in html
    assert 'id="attempts"' in html and "Earlier attempts" in html
    assert "ValueError: batch 4 has no" in html
    assert "Suggested owner: customer" in html
    ever = provider.client().get(url, {"first": "ever"}).content.decode()
    assert "The first failure of the run, in attempt 0 of 2" in ever
    assert "<strong>rank 2</strong>" in ever and "Later attempts" in ever


def test_the_api_chooses_ending_or_first_ever_and_refuses_anything_else(
    accepted, provider, buyer, outsider, rival_provider, django_capture_on_commit_callbacks
) -> None:
    run = _upload(accepted, provider, django_capture_on_commit_callbacks)
    url = reverse("api:failed-run-detail", args=[run.pk])
    doc = _api(buyer).get(url).json()["analysis"]
    assert (doc["initiating_rank"], doc["attempt"], doc["first"]) == (6, 1, "ending")
    assert [(a["attempt"], a["initiating_rank"]) for a in doc["attempts"]] == [(0, 2)]
    ever = _api(provider).get(url, {"first": "ever"}).json()["analysis"]
    assert (ever["initiating_rank"], ever["attempt"], ever["first"]) == (2, 0, "ever")
    assert [(a["attempt"], a["initiating_rank"]) for a in ever["attempts"]] == [(1, 6)]
    bad = _api(provider).get(url, {"first": "last"})
    assert bad.status_code == 400 and "first" in bad.json()["errors"]
    assert "'ever'" in bad.json()["errors"]["first"][0]
    for stranger in (outsider, rival_provider):
        assert _api(stranger).get(url, {"first": "ever"}).status_code == 404


def test_old_owner_words_read_as_the_terms_words(accepted, provider, analysed) -> None:
    analysed.analysis = {**analysed.analysis, "suggested_owner": "infrastructure"}
    analysed.save(update_fields=["analysis"])
    detail = _api(provider).get(reverse("api:failed-run-detail", args=[analysed.pk])).json()
    assert detail["analysis"]["suggested_owner"] == "provider"
    page = provider.client().get(reverse("incidents:failed-run-detail", args=[analysed.pk]))
    assert "Suggested owner: provider" in page.content.decode()
    incident = services.incident_open(failed_run=analysed, user=provider.user)
    assert incident.suggested_owner == "provider"
    Incident.objects.filter(pk=incident.pk).update(suggested_owner="application")
    api = _api(provider).get(reverse("api:incident-detail", args=[incident.pk])).json()
    assert api["suggested_owner"] == "customer"
    html = provider.client().get(reverse("incidents:incident-detail", args=[incident.pk]))
    assert "Suggested owner: customer" in html.content.decode()


def test_shared_evidence_is_low_and_the_page_lists_the_other_candidates(
    accepted, provider, django_capture_on_commit_callbacks
) -> None:
    shaped = RESTART.parents[1] / "watchdog_scatter_sigabrt_8rank.log"
    with django_capture_on_commit_callbacks(execute=True):
        run = services.failed_run_upload(
            reservation=accepted.reservation,
            user=provider.user,
            uploads=[SimpleUploadedFile("torchrun.log", shaped.read_bytes())],
        )
    run.refresh_from_db()
    assert run.analysis["confidence"] == "low"
    page = provider.client().get(reverse("incidents:failed-run-detail", args=[run.pk]))
    html = page.content.decode()
    assert 'id="candidates"' in html and "the same evidence" in html
    # A SIGABRT shared by several ranks after the timeouts names no initiating rank.
    assert run.analysis["initiating_rank"] is None
    assert "No initiating rank named" in html and "never entered collective 78" in html
    for rank in (2, 3, 4, 5, 7):
        assert f"rank {rank} on gpu-dev-12542fe0" in html
