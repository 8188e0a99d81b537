"""Demo data for the burn-in pages: a second, already-closed request awarded to Aurora, with a
reservation pending acceptance and a first burn-in upload whose gate blocks (all_reduce is slow).

Run after `demo.seed.seed_demo()` (it needs the demo organisations); running it twice changes
nothing. The main demo request stays open so the comparison page keeps its bids.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from acceptance.models import BurnInRun, Reservation
from acceptance.services.acknowledgements import acknowledgement_submit
from acceptance.services.award import request_award
from acceptance.services.burnin import run_create
from acceptance.services.fixtures import fixture_from_template
from bids import services
from bids.models import Bid, CapacityRequest
from contracts.defaults import DEFAULT_TERMS_TEMPLATE
from contracts.services.terms import terms_create
from orgs.models import Organization

DEMO_TITLE = "16 × H200 burn-in demo (awarded)"


DEMO_EVIDENCE = Path(__file__).resolve().parent / "demo_evidence"


@transaction.atomic
def seed_burnin_demo() -> BurnInRun | None:
    """Returns the demo run (None when the demo organisations are missing)."""
    existing = Reservation.objects.filter(request__title=DEMO_TITLE).first()
    if existing is not None:
        return existing.runs.order_by("pk").first()
    user_model = get_user_model()
    buyer_org = Organization.objects.filter(slug="helix-labs").first()
    provider_org = Organization.objects.filter(slug="aurora-gpu-cloud").first()
    alice = user_model.objects.filter(username="alice").first()
    arun = user_model.objects.filter(username="arun").first()
    if not (buyer_org and provider_org and alice and arun):
        return None
    start = timezone.localdate() + timedelta(days=30)
    req: CapacityRequest = services.request_create(
        buyer=buyer_org,
        user=alice,
        data={
            "title": DEMO_TITLE,
            "description": "Already awarded, so the burn-in and acceptance pages have data.",
            "gpu_model": "H200",
            "gpu_count": 16,
            "nodes": 2,
            "gpus_per_node": 8,
            "acceptable_regions": ["eu"],
            "reservation_start": start,
            "reservation_end": start + timedelta(days=89),
            "bid_deadline": timezone.now() + timedelta(days=7),
            "sealed": False,
        },
    )
    fixture_from_template(capacity_request=req, user=alice, template="rank-sum-allreduce")
    terms_create(capacity_request=req, user=alice, template=DEFAULT_TERMS_TEMPLATE)
    services.request_invite(capacity_request=req, user=alice, providers=[provider_org])
    services.request_publish(capacity_request=req, user=alice)
    bid = services.bid_start(capacity_request=req, provider=provider_org, user=arun)
    services.bid_save_draft(
        bid=bid,
        user=arun,
        data={
            "price_per_gpu_hour": "2.45",
            "region": "eu",
            "site": "Helsinki HEL-2",
            "available_start": start,
            "gpu_model": "H200",
            "nodes": 2,
            "gpus_per_node": 8,
        },
    )
    services.bid_submit(bid=Bid.objects.get(pk=bid.pk), user=arun)
    acknowledgement_submit(
        bid=bid,
        user=arun,
        status="accepted_with_exceptions",
        exceptions=[{"text": "DCGM level 3 in burn-in; level 4 only in a maintenance window"}],
        provider_owner_name="Aurora NOC duty manager",
        provider_owner_contact="noc@aurora-gpu-cloud.example · +358 9 555 0100",
    )
    services.request_close(capacity_request=req, user=alice, confirmed=True)
    reservation = request_award(capacity_request=req, bid=Bid.objects.get(pk=bid.pk), user=alice)
    run = run_create(reservation=reservation, user=arun, label="Burn-in 1")
    _upload_demo_evidence(run, arun)
    return run


def _upload_demo_evidence(run: BurnInRun, user: Any) -> None:
    """A first upload whose gate blocks: the rank sum passes, all_reduce is slow.

    The whole-allocation files sit in demo_evidence/; each node's files under nodes/<node>/,
    as collect_evidence.sh leaves them: its header names the node, host and time, so no two
    nodes' files are the same bytes (which would be a finding). The newcomer sees a gate that
    blocks, with the reasons; a faster all_reduce is the demo's next step.
    """
    from django.core.files.uploadedfile import SimpleUploadedFile

    from acceptance.services.burnin import evidence_upload

    for path in sorted(p for p in DEMO_EVIDENCE.iterdir() if p.is_file()):
        upload = SimpleUploadedFile(path.name, path.read_bytes())
        evidence_upload(run=run, user=user, upload=upload)
    for node in sorted(p for p in (DEMO_EVIDENCE / "nodes").iterdir() if p.is_dir()):
        for path in sorted(node.iterdir()):
            upload = SimpleUploadedFile(path.name, path.read_bytes())
            evidence_upload(run=run, user=user, upload=upload, node=node.name)
