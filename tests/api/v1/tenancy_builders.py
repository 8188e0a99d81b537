"""The parameter and body builders of the API tenancy table (tests/api/v1/test_tenancy.py):
the objects each operation is called on, and the role sets its rows name."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from datetime import UTC, datetime, time, timedelta
from pathlib import Path
from typing import Any

from django.core.files.uploadedfile import SimpleUploadedFile

from incidents.selectors import checklist_states
from notices.choices import Event
from notices.models import Notice
from notices.services import notify_members
from tests.api.v1.conftest import ROLES, ApiWorld

OK, CREATED, NO_CONTENT, REFUSED, HIDDEN, UNAUTHENTICATED = 200, 201, 204, 400, 404, 401
Params = Callable[[ApiWorld], dict[str, Any]]
Body = Callable[[ApiWorld], Any] | None


CONFLICT = 409  # a lifecycle move refused in this state
FORBIDDEN = 403  # a lifecycle move refused to this party or role


def only(**allowed: int) -> dict[str, int]:
    """Everyone else: 404 (never a hint), anonymous: 401."""
    expected = dict.fromkeys(ROLES, HIDDEN)
    expected["anonymous"] = UNAUTHENTICATED
    expected.update(allowed)
    return expected


def reference_file(w: ApiWorld) -> dict[str, Any]:
    """A stored reference run on the open request's current fixture version."""
    from acceptance.models import FixtureReference, FixtureVersion

    version = FixtureVersion.objects.filter(fixture__request=w.request).order_by("-number")[0]
    ref = FixtureReference(fixture_version=version, source="cpu_dry_run")
    ref.store(SimpleUploadedFile("dry-run.jsonl", b'{"rank": 0}\n'))
    ref.save()
    return {"id": ref.pk}


def bid_attachment(w: ApiWorld) -> dict[str, Any]:
    """A file on the open request's bid that its revision 1 carried."""
    from tests.bids.attachment_helpers import frozen_attachment

    return {"id": w.bid.pk, "attachment": frozen_attachment(w).pk}


def req(w: ApiWorld) -> dict[str, Any]:
    return {"id": w.request.pk}


def bid(w: ApiWorld) -> dict[str, Any]:
    return {"id": w.bid.pk}


def reservation(w: ApiWorld) -> dict[str, Any]:
    return {"id": w.reservation.pk}


def lot(w: ApiWorld) -> dict[str, Any]:
    from tests.factories import LotFactory

    last = w.request.lots.order_by("-number").values_list("number", flat=True).first() or 0
    return {"id": w.request.pk, "number": LotFactory(request=w.request, number=last + 1).number}


def own_lot(w: ApiWorld) -> dict[str, Any]:
    """A lot of the open request with its own fixture and terms (given while a draft)."""
    from acceptance.models import Fixture, FixtureVersion
    from contracts.models import HandoffTerms
    from engine.evidence.fixtures import default_spec, spec_sha256
    from tests.factories import LotFactory

    done = w.request.lots.filter(fixture__isnull=False).first()
    if done is not None:  # one per world: the builders may be asked again
        return {"id": w.request.pk, "number": done.number}
    last = w.request.lots.order_by("-number").values_list("number", flat=True).first() or 0
    made = LotFactory(request=w.request, number=last + 1)
    spec = default_spec(gpu_model="H200", nodes=made.nodes, gpus_per_node=made.gpus_per_node)
    fixture = Fixture.objects.create(lot=made)
    FixtureVersion.objects.create(
        fixture=fixture,
        number=1,
        template=spec["template"],
        spec=spec,
        spec_sha256=spec_sha256(spec),
        manifest={},
    )
    HandoffTerms.objects.create(lot=made, buyer_owner_name="Ada", buyer_owner_contact="a@x.io")
    return {"id": w.request.pk, "number": made.number}


def bid_own_lot(w: ApiWorld) -> dict[str, Any]:
    """The provider's bid, and a lot of its request with its own fixture and terms."""
    return {"id": w.bid.pk, "number": own_lot(w)["number"]}


def lot_ack_body(w: ApiWorld) -> dict[str, Any]:
    return {
        "status": "accepted",
        "provider_owner_name": "Nils Berg",
        "provider_owner_contact": "oncall@northwind.example",
    }


def scenario(w: ApiWorld) -> dict[str, Any]:
    """A stored award scenario on the open request (made directly: reads need no solve)."""
    from evaluation.models import AwardScenario

    made = AwardScenario.objects.create(request=w.request, name="Cheapest")
    return {"id": w.request.pk, "sid": made.pk}


def none(w: ApiWorld) -> dict[str, Any]:
    return {}


def incident(w: ApiWorld) -> dict[str, Any]:
    return {"id": w.incident.pk}


def pilot(w: ApiWorld) -> dict[str, Any]:
    return {"id": w.pilot.pk}


def pilot_request(w: ApiWorld) -> dict[str, Any]:
    return {"id": w.pilot.bid.request_id}


def pilot_evidence(w: ApiWorld) -> dict[str, Any]:
    from acceptance.models import Evidence

    return {"id": Evidence.objects.filter(run__pilot=w.pilot).values_list("pk", flat=True)[0]}


def pilot_invite_body(w: ApiWorld) -> dict[str, Any]:
    """The rival's bid, shortlisted and not yet invited: the buyer's call invites it."""
    start = datetime.now(UTC).date() + timedelta(days=1)
    rival = w.pilot.bid.request.bids.exclude(pk=w.pilot.bid_id).get()
    return {
        "bid": rival.pk,
        "starts_on": start.isoformat(),
        "ends_on": (start + timedelta(days=2)).isoformat(),
    }


def providers_notice(w: ApiWorld) -> dict[str, Any]:
    """A notice to the provider's members; the id is Nora's (the provider role's own)."""
    notify_members(
        event=Event.AWARD,
        organization=w.bid.provider,
        subject="You won",
        body="Awarded.",
        path="/",
        key="api-tenancy",
    )
    notice = Notice.objects.get(key="api-tenancy", recipient__username="nora")
    return {"id": str(notice.public_id)}


def _member(org: Any) -> Any:
    return org.memberships.order_by("pk").first().user


def approval(w: ApiWorld) -> dict[str, Any]:
    """An award of the provider's bid awaiting one approver, asked by the buyer role's user
    (made directly: the open request has no approval policy)."""
    from bids.models import ApprovalRequest

    asked, _ = ApprovalRequest.objects.get_or_create(  # one live award approval per request
        request=w.request,
        action="award",
        status="pending",
        defaults={"bid": w.bid, "needed": 1, "asked_by": _member(w.request.buyer)},
    )
    return {"id": asked.pk}


def question(w: ApiWorld) -> dict[str, Any]:
    """Question 1 on the open request, asked by the provider role's organisation."""
    from bids.services import question_ask

    org = w.bid.provider
    q = question_ask(
        capacity_request=w.request, provider=org, user=_member(org), text="Rail-optimised?"
    )
    return {"id": w.request.pk, "number": q.number}


def addendum(w: ApiWorld) -> dict[str, Any]:
    from bids.services import addendum_publish

    a = addendum_publish(
        capacity_request=w.request,
        user=_member(w.request.buyer),
        title="T",
        text="X",
        confirmed=True,
    )
    return {"id": w.request.pk, "number": a.number}


def severity_proposed(w: ApiWorld) -> dict[str, Any]:
    """The incident (opened by the buyer) with S2 proposed by the provider, waiting."""
    from incidents.services import incident_severity_propose

    incident_severity_propose(
        incident=w.incident, user=w.incident.reservation.bid.provider.memberships.order_by(
            "pk").first().user, severity="S2", reason="The job runs on, degraded.",
    )  # fmt: skip
    return {"id": w.incident.pk}


def baseline_proposed(w: ApiWorld) -> dict[str, Any]:
    """The incident's reservation with a baseline step time the buyer proposed, waiting."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from incidents.services.baseline import baseline_propose

    rows = ["time,step,step_seconds"] + [f"2026-01-01T00:{m:02d}:00Z,{m},0.9" for m in range(12)]
    reservation = w.incident.reservation
    baseline_propose(
        reservation=reservation,
        user=reservation.request.buyer.memberships.order_by("pk").first().user,
        upload=SimpleUploadedFile("ours.csv", "\n".join(rows).encode()),
        reason="Our own job's step time.",
    )
    return {"id": reservation.pk}


def signal_body(w: ApiWorld) -> dict[str, Any]:
    """An incident from a signal: inside the term (after the acceptance), on any node (the
    reservation's burn-in names none)."""
    start = w.incident.reservation.clock_start
    return {"severity": "S3", "signal": "other", "nodes": ["gpu-a02"],
            "window_start": start.isoformat(), "summary": "Node drained."}  # fmt: skip


def signable(w: ApiWorld) -> dict[str, Any]:
    key = next(s.key for s in checklist_states(w.incident) if s.signable)
    return {"key": key, "note": "Node drained and re-seated; ibstat clean."}


def _window_times(w: ApiWorld, days: int) -> tuple[datetime, datetime]:
    first = w.incident.reservation.request.reservation_start + timedelta(days=days)
    start = datetime.combine(first, time(2), tzinfo=UTC)
    return start, start + timedelta(hours=4)


def maintenance_body(w: ApiWorld) -> dict[str, Any]:
    start, end = _window_times(w, 12)
    return {"starts_at": start.isoformat(), "ends_at": end.isoformat(), "reason": "Firmware"}


def maintenance(w: ApiWorld) -> dict[str, Any]:
    """A window announced with notice on the accepted reservation (nothing to agree to)."""
    from delivery.services import maintenance_announce

    start, end = _window_times(w, 10)
    reservation = w.incident.reservation
    engineer = reservation.bid.provider.memberships.order_by("pk").first()
    window = maintenance_announce(
        reservation=reservation, user=engineer.user, starts_at=start, ends_at=end,
        reason="Firmware",
    )  # fmt: skip
    return {"id": window.pk}


def usage(w: ApiWorld) -> dict[str, Any]:
    """A usage file on the accepted reservation, uploaded by the buyer who opened the incident."""
    from billing.services import usage_upload

    reservation = w.incident.reservation
    upload = usage_upload(
        reservation=reservation,
        user=w.incident.opened_by,
        upload=SimpleUploadedFile("usage.csv", USAGE_CSV.read_bytes()),
    )
    return {"id": reservation.pk, "uid": upload.pk}


USAGE_CSV = Path(__file__).resolve().parents[2] / "billing" / "data" / "usage_planted.csv"
USAGE_MAPPING = {
    "columns": {
        "period_start": "usage_start",
        "period_end": "usage_end",
        "node": "instance_id",
        "gpus": "gpu_count",
        "quantity": "hours",
        "rate": "rate_usd",
        "amount": "amount_usd",
        "line_type": "line_type",
    },
    "unit": "hours",
}


class Multipart:
    """A multipart body: the role uploads the slow all_reduce log with these fields."""

    def __init__(self, **fields: str) -> None:
        self.fields = fields


ALL_ORGS = only(buyer=OK, provider=OK, rival_provider=OK, outsider=OK)
INVITED = only(buyer=OK, provider=OK, rival_provider=OK)
BUYER = only(buyer=OK)
BIDDERS = only(provider=OK, rival_provider=OK)
OWNER_AND_BUYER = only(provider=OK, buyer=OK)
ANY_BUYER = only(buyer=OK, outsider=OK)


def _party_member(w: ApiWorld, party: str) -> Any:
    reservation = w.incident.reservation
    org = reservation.bid.provider if party == "provider" else reservation.request.buyer
    return org.memberships.order_by("pk").first().user


def change_proposed(w: ApiWorld) -> dict[str, Any]:
    """A configuration change the provider proposed on the incident, waiting for the buyer."""
    from incidents.services.record import change_propose

    entry = change_propose(
        incident=w.incident, user=_party_member(w, "provider"), kind="config",
        what="NCCL_IB_HCA limited to mlx5_0-3 on gpu-a02",
    )  # fmt: skip
    return {"id": w.incident.pk, "change": entry.pk}


def change_approved(w: ApiWorld) -> dict[str, Any]:
    """The provider's change, approved by the buyer: ready to be recorded as applied."""
    from incidents.services.record import change_decide

    params = change_proposed(w)
    change_decide(
        incident=w.incident, user=_party_member(w, "buyer"), entry=params["change"], approve=True
    )
    return params


def change_body(w: ApiWorld) -> dict[str, Any]:
    return {"kind": "workaround", "what": "Job pinned to the other seven nodes."}


def estimate_body(w: ApiWorld) -> dict[str, Any]:
    eta = datetime.now(UTC) + timedelta(hours=6)
    return {"cause_class": "gpu", "eta": eta.isoformat(), "confidence": "medium",
            "parts": ["H200 SXM GPU (1)"]}  # fmt: skip


def fewer_nodes_body(w: ApiWorld) -> dict[str, Any]:
    return {"at": datetime.now(UTC).isoformat(), "continuing_nodes": 1}


def signed_off(w: ApiWorld) -> dict[str, Any]:
    """The buyer's first signable item, signed off by the buyer: the provider may dispute it."""
    from incidents.services import incident_signoff

    incident_signoff(incident=w.incident, user=_party_member(w, "buyer"), **signable(w))
    return {"id": w.incident.pk}


def signoff_dispute_body(w: ApiWorld) -> dict[str, Any]:
    key = (
        w.incident.signoffs.values_list("key", flat=True).first()
        or w.incident.disputes.values_list("key", flat=True).first()
    )
    return {"key": key, "reason": "The loss curve jumps after the restart."}


def export_job(status: str) -> Params:
    """An export of the buyer's organisation: `done` with its zip stored, or `failed`."""

    def build(w: ApiWorld) -> dict[str, Any]:
        from django.core.files.base import ContentFile

        from ops.models import ExportJob

        job = ExportJob.objects.create(organization=w.request.buyer, status=status)
        if status == "done":
            job.file.save("export.zip", ContentFile(b"PK\x05\x06" + bytes(18)))
        return {"id": job.pk}

    return build


_ADDRESSES = itertools.count(1)


def fresh_invite_body(w: ApiWorld) -> dict[str, Any]:
    """A new address per call: each administrator's invitation is its own first."""
    return {"email": f"new-member-{next(_ADDRESSES)}@example.com", "role": "admin"}


def member_invitation(w: ApiWorld) -> dict[str, Any]:
    """The buyer's open invitation to the provider's own address: only the buyer's
    administrators withdraw it, only the provider's user answers it."""
    from orgs.services import invitation_send

    buyer_admin = _member(w.request.buyer)
    provider_user = _member(w.bid.provider)
    invitation = invitation_send(
        org=w.request.buyer, user=buyer_admin, email=provider_user.email, role="approver"
    )
    return {"id": invitation.pk}


def change_announce_body(w: ApiWorld) -> dict[str, Any]:
    """A driver change in a fresh window with notice, its canary on one of the two nodes."""
    from delivery.services import maintenance_announce

    start, end = _window_times(w, 16)
    reservation = w.incident.reservation
    engineer = reservation.bid.provider.memberships.order_by("pk").first()
    window = maintenance_announce(
        reservation=reservation, user=engineer.user, starts_at=start, ends_at=end,
        reason="Driver upgrade",
    )  # fmt: skip
    return {
        "window": window.pk, "kind": "driver", "component": "NVIDIA driver",
        "from_version": "560.35.03", "to_version": "570.124.06", "canary_nodes": ["gpu-a01"],
    }  # fmt: skip


def planned_change(w: ApiWorld) -> dict[str, Any]:
    """A driver change announced with notice on the accepted reservation, inside a window two
    weeks into the term, its canary on one of the two nodes."""
    from delivery.changes import change_announce
    from delivery.services import maintenance_announce

    start, end = _window_times(w, 14)
    reservation = w.incident.reservation
    engineer = reservation.bid.provider.memberships.order_by("pk").first()
    window = maintenance_announce(
        reservation=reservation, user=engineer.user, starts_at=start, ends_at=end,
        reason="Driver upgrade",
    )  # fmt: skip
    change = change_announce(
        reservation=reservation, user=engineer.user, window=window, kind="driver",
        component="NVIDIA driver", from_version="560.35.03", to_version="570.124.06",
        canary_nodes="gpu-a01",
    )  # fmt: skip
    return {"id": change.pk}


def webhook_body(w: ApiWorld) -> dict[str, Any]:
    """An endpoint every organisation's kind may have: incidents reach both parties."""
    return {"url": "https://hooks.example.com/cb", "events": ["incident_opened"]}


def _buyer_webhook(w: ApiWorld) -> Any:
    from webhooks.models import Endpoint
    from webhooks.services import endpoint_create

    found = Endpoint.objects.filter(organization=w.request.buyer, description="tenancy").first()
    if found is not None:  # one per world: the builders may be asked again
        return found
    return endpoint_create(
        organization=w.request.buyer,
        user=_member(w.request.buyer),
        url="https://hooks.example.com/cb",
        events=["incident_opened"],
        description="tenancy",
    )[0]


def webhook(w: ApiWorld) -> dict[str, Any]:
    """The buyer's endpoint: only the buyer's administrators reach it."""
    return {"id": str(_buyer_webhook(w).public_id)}


def webhook_delivery(w: ApiWorld) -> dict[str, Any]:
    """A failed delivery to the buyer's endpoint (made directly: nothing is sent)."""
    from django.utils import timezone

    from webhooks.models import Delivery, Event

    endpoint = _buyer_webhook(w)
    now = timezone.now()
    event, _ = Event.objects.get_or_create(
        organization=w.request.buyer,
        key="api-tenancy",
        defaults={"event_type": "incident_opened", "occurred_at": now, "payload": {}},
    )
    delivery, _ = Delivery.objects.get_or_create(
        endpoint=endpoint,
        event=event,
        defaults={"state": "failed", "attempts": 1, "attempts_allowed": 1, "queued_at": now},
    )
    return {"id": str(delivery.public_id)}
