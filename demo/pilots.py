"""The demo request's pilot: Helix closes bidding, shortlists Aurora and Northwind in a
best-and-final round, closes that round too, and invites Aurora to a pilot. Aurora uploads the
pilot's evidence (the fixture, all_reduce, the node's topology, nvbandwidth and both perftest
probes), so the comparison shows Aurora's verified figures beside its claims and Northwind's
invitation form beside its claims alone.

Every move goes through the services, as the people would make them; running it twice changes
nothing. The evidence is parsed and checked once the seed commits (in-process without a broker).
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.utils import timezone

from acceptance.demo_burnin import DEMO_EVIDENCE
from acceptance.models import BurnInRun, Pilot
from acceptance.services.burnin import evidence_upload
from acceptance.services.pilot import pilot_invite
from bids import services
from bids.choices import RequestStatus
from bids.models import Bid, CapacityRequest
from demo.seed import REQUEST_TITLE

PILOT_DATA = Path(__file__).resolve().parent / "data" / "pilot"
PILOTED = "Aurora GPU Cloud"
SHORTLIST = ("Aurora GPU Cloud", "Northwind Compute")
APPLICATION_RUN = (
    "Run `sbatch pretrain-13b-smoke.sbatch` (200 steps on all 16 GPUs, our container digest "
    "in the fixture) and upload its step-time CSV beside your probes."
)
# (file, node): whole-allocation files without a node, one node's probes with it.
PILOT_FILES: list[tuple[Path, str]] = [
    (DEMO_EVIDENCE / "fixture-result.jsonl", ""),
    (DEMO_EVIDENCE / "all_reduce_perf.txt", ""),
    (DEMO_EVIDENCE / "step-times.csv", ""),
    (DEMO_EVIDENCE / "nodes" / "gpu-a01" / "nvidia-smi-topo.txt", "gpu-a01"),
    (PILOT_DATA / "nvbandwidth_v0.8_8xh100_h2d_d2h_d2d_read_ce.txt", "gpu-a01"),
    (PILOT_DATA / "ib_write_bw_two_hcas_mlx5_1_at_198gbits.txt", "gpu-a01"),
    (PILOT_DATA / "ib_write_lat_percentiles_three_sizes.txt", "gpu-a01"),
]


@transaction.atomic
def seed_pilot_demo() -> Pilot | None:
    """The pilot on the demo request, made once (None without the demo request)."""
    capacity_request = CapacityRequest.objects.filter(
        buyer__slug="helix-labs", title=REQUEST_TITLE
    ).first()
    buyer_user = get_user_model().objects.filter(username="alice").first()
    if capacity_request is None or buyer_user is None:
        return None
    existing = Pilot.objects.filter(bid__request=capacity_request).first()
    if existing is not None:
        return existing
    bids = {b.provider.name: b for b in capacity_request.bids.select_related("provider", "request")}
    if PILOTED not in bids or capacity_request.status != RequestStatus.OPEN:
        return None
    _shortlist(capacity_request, buyer_user, [bids[name].pk for name in SHORTLIST if name in bids])
    today = timezone.localdate()
    pilot = pilot_invite(
        bid=Bid.objects.get(pk=bids[PILOTED].pk),
        user=buyer_user,
        starts_on=today - timedelta(days=1),
        ends_on=today + timedelta(days=2),
        instructions=APPLICATION_RUN,
    )
    provider_user = bids[PILOTED].provider.memberships.order_by("pk").first()
    assert provider_user is not None  # the seed made Aurora's administrator first
    run = BurnInRun.objects.get(pilot=pilot)
    for path, node in PILOT_FILES:
        upload = SimpleUploadedFile(path.name, path.read_bytes())
        evidence_upload(run=run, user=provider_user.user, upload=upload, node=node)
    return pilot


def _shortlist(capacity_request: CapacityRequest, user: Any, shortlist: list[int]) -> None:
    """Close bidding, open the final round to the shortlist, and close it at once: no bid is
    revised, and the bids are open to the buyer again."""
    services.request_close(capacity_request=capacity_request, user=user, confirmed=True)
    services.final_round_open(
        capacity_request=capacity_request,
        user=user,
        shortlist=shortlist,
        bid_deadline=timezone.now() + timedelta(days=3),
        confirmed=True,
    )
    services.request_close(capacity_request=capacity_request, user=user, confirmed=True)
