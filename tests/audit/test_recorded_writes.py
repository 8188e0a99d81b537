"""Writes the API audit walk (tests/api/v1/test_audit_coverage.py) cannot make succeed in its
world, each shown leaving its entry on the chain, for the parties who may read it."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from acceptance.services import acknowledgement_submit, fixture_from_template
from api.models import ApiToken
from audit.models import AuditEntry
from audit.selectors import chain_verify, entries_for
from bids.services import request_create
from delivery import services as delivery
from incidents import services as incidents
from incidents.models import FailedRun, FailedRunState
from tests.bids.test_request_services import _data
from tests.delivery.helpers import example_reservation, utc
from tests.incidents.helpers import accepted, media_root, scenario_upload

__all__ = ["accepted", "media_root"]

pytestmark = pytest.mark.django_db


def _actions(org: Any, key: str) -> list[str]:
    return [e.action for e in entries_for(org=org, obj_key=key)]


def test_a_new_request_is_recorded_for_its_buyer_alone(buyer, provider):
    req = request_create(buyer=buyer.org, user=buyer.user, data=_data())
    assert _actions(buyer.org, f"request:{req.pk}") == ["request.create"]
    assert _actions(provider.org, f"request:{req.pk}") == []


def test_a_short_notice_window_agreed_is_recorded(buyer, provider, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    reservation = example_reservation(buyer, provider)
    window = delivery.maintenance_announce(
        reservation=reservation, user=provider.user, starts_at=utc(3, 15, 2),
        ends_at=utc(3, 15, 6), reason="Firmware", now=utc(3, 15, 1),
    )  # fmt: skip
    assert window.short_notice
    delivery.maintenance_agree(window=window, user=buyer.user, now=utc(3, 15, 1, 30))
    entry = AuditEntry.objects.get(action="maintenance.agree")
    assert entry.actor_name == buyer.user.username and entry.party == "buyer"


def test_failed_run_uploads_and_retries_are_recorded(accepted, provider, buyer):
    run = incidents.failed_run_upload(
        reservation=accepted.reservation, user=provider.user, uploads=[scenario_upload()]
    )
    upload = AuditEntry.objects.get(action="failed_run.upload")
    assert upload.after["failed_run"] == run.pk and upload.party == "provider"
    assert all(len(f["sha256"]) == 64 for f in upload.after["files"])
    FailedRun.objects.filter(pk=run.pk).update(state=FailedRunState.ERROR, error="crashed")
    run.refresh_from_db()
    incidents.failed_run_retry(failed_run=run, user=buyer.user)
    retry = AuditEntry.objects.get(action="failed_run.retry")
    assert retry.before == {"state": "error", "error": "crashed"} and retry.party == "buyer"
    key = f"reservation:{accepted.reservation.pk}"
    for org in (buyer.org, provider.org):
        assert {"failed_run.upload", "failed_run.retry"} <= set(_actions(org, key))
    assert chain_verify().intact


def test_tokens_made_and_revoked_on_the_page_are_on_each_organisations_record(
    buyer, provider, rival_provider
):
    client = buyer.client()
    client.post(reverse("api:token-list"), {"name": "cluster"})
    token = ApiToken.objects.get(user=buyer.user)
    client.post(reverse("api:token-revoke", args=[token.pk]))
    key = f"org:{buyer.org.pk}"
    assert _actions(buyer.org, key)[-2:] == ["token.create", "token.revoke"]
    created = AuditEntry.objects.get(action="token.create")
    assert created.after == {"user": buyer.user.username, "token": token.prefix, "name": "cluster"}
    assert "token.create" not in _actions(provider.org, f"org:{provider.org.pk}")


def test_a_fixture_acknowledgement_is_the_bids_and_hidden_while_sealed(world, buyer, provider):
    fixture_from_template(
        capacity_request=world.request, user=buyer.user, template="rank-sum-allreduce"
    )
    acknowledgement_submit(bid=world.bid, user=provider.user, status="accepted")
    entry = AuditEntry.objects.get(action="bid.acknowledge")
    assert entry.obj_key == f"bid:{world.bid.pk}" and entry.hidden_while_sealed
    assert entry.after["fixture_version"] == 1


def test_a_draft_and_its_answers_are_the_providers_alone(world, buyer, provider):
    from bids.services import bid_save_draft

    bid_save_draft(bid=world.bid, user=provider.user, data={"site": "Frankfurt FR3"})
    key = f"bid:{world.bid.pk}"
    assert "bid.draft" in _actions(provider.org, key)
    assert "bid.draft" not in _actions(buyer.org, key)
    entry = AuditEntry.objects.get(action="bid.draft")
    assert entry.after == {"site": "Frankfurt FR3"}
