"""Announcing a planned change by API, as a provider engineer's script does: each refusal names
the field and says what to do, the window a change names is one of the reservation's own, and
both parties list the reservation's changes (the rival gets 404)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from audit.models import AuditEntry
from delivery import services
from tests.acceptance.burnin.helpers import media_root
from tests.api.v1.conftest import token_client
from tests.delivery.changes.helpers import change_world

__all__ = ["media_root"]
pytestmark = pytest.mark.django_db


def _body(window_id: int, **extra: object) -> dict[str, object]:
    return {
        "window": window_id, "kind": "driver", "component": "NVIDIA driver",
        "from_version": "560.35.03", "to_version": "570.124.06",
        "canary_nodes": ["gpu-a01"], **extra,
    }  # fmt: skip


def test_the_provider_announces_by_api_and_both_parties_list_it(
    buyer, provider, rival_provider, django_capture_on_commit_callbacks
):
    cw = change_world(buyer, provider, django_capture_on_commit_callbacks)
    bob, nora, rita = (token_client(r.user) for r in (buyer, provider, rival_provider))
    url = f"/api/v1/reservations/{cw.reservation.pk}/changes/"
    assert nora.get(url).json()["results"] == []

    everywhere = nora.post(
        url, _body(cw.window.pk, canary_nodes=["gpu-a01", "gpu-a02", "gpu-a03", "gpu-a04"]),
        format="json",
    )  # fmt: skip
    assert everywhere.status_code == 400
    assert "leave at least one node" in everywhere.json()["errors"]["canary_nodes"][0]

    same = nora.post(url, _body(cw.window.pk, to_version="560.35.03"), format="json")
    assert same.status_code == 400 and set(same.json()["errors"]) == {"to_version"}

    soon = services.maintenance_announce(
        reservation=cw.reservation, user=provider.user,
        starts_at=cw.now + timedelta(hours=30), ends_at=cw.now + timedelta(hours=32),
        reason="Driver upgrade", now=cw.now,
    )  # fmt: skip
    services.maintenance_agree(window=soon, user=buyer.user)
    short = nora.post(url, _body(soon.pk), format="json")
    assert short.status_code == 400
    assert "Name a later window" in short.json()["errors"]["window"][0]

    other = services.maintenance_announce(
        reservation=cw.reservation, user=provider.user,
        starts_at=cw.now + timedelta(days=6), ends_at=cw.now + timedelta(days=6, hours=2),
        reason="Other", now=cw.now,
    )  # fmt: skip
    foreign = nora.post(url, _body(other.pk + 1000), format="json")
    assert foreign.status_code == 400 and "Name the maintenance window" in str(foreign.json())

    assert bob.post(url, _body(cw.window.pk), format="json").status_code == 403
    assert rita.post(url, _body(cw.window.pk), format="json").status_code == 404

    made = nora.post(url, _body(cw.window.pk, description="Security fix."), format="json")
    assert made.status_code == 201, made.content
    change = made.json()
    assert change["state"] == "announced" and change["verdict"] == "waiting"
    assert change["canary_nodes"] == ["gpu-a01"] and change["window"] == cw.window.pk
    assert AuditEntry.objects.filter(action="change.announce", obj_key=f"change:{change['id']}")

    listed = bob.get(url).json()
    assert [c["id"] for c in listed["results"]] == [change["id"]]
    assert listed["results"][0]["verdict"] == "waiting"
    assert rita.get(url).status_code == 404
