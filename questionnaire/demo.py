"""Demo answers: the premium provider answers fully with 24 × 7 clocks, the cheap one with
business-hours clocks, the third names another NCCL transport than the fixture needs."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from bids.choices import BidStatus
from bids.models import Bid, CapacityRequest
from bids.services import bid_submit
from questionnaire.defaults import SEVERITIES
from questionnaire.models import BidQuestionnaire
from questionnaire.services import (
    answers_save,
    conflicts_keep,
    question_set_attach_default,
    unresolved_conflicts,
)

# Per profile: first-response and restore clocks per severity (minutes), as in scoring's demo.
PROFILES: dict[str, dict[str, Any]] = {
    "premium": {
        "response": {"S1": 15, "S2": 60, "S3": 240},
        "restore": {"S1": 240, "S2": 480, "S3": 1440},
        "owners": {"detect": "provider", "diagnose": "provider", "revalidate": "provider"},
        "time_zone": "Follow-the-sun team; Stockholm on-call overnight (CET)",
        "transport": "IB",
        "backend": "NCCL 2.23, CUDA 12.6, IB GPUDirect RDMA, proxy backend",
        "shared": "yes",
        "billing": "paused",
        "ticket": ["ids", "utc_window", "rank_map", "nccl_output"],
        "notice": "7 days",
    },
    "cheap": {
        "response": {"S1": 240, "S2": 480, "S3": 1440},
        "restore": {"S1": 2880, "S2": 4320, "S3": 5760},
        "owners": {"detect": "shared", "diagnose": "shared", "revalidate": "shared"},
        "time_zone": "CET, Mon–Fri 09:00–18:00; weekends by e-mail",
        "transport": "IB",
        "backend": "NCCL 2.21, CUDA 12.4, IB verbs",
        "shared": "no",
        "billing": "full",
        "notice": "48 h",
        "fixed_windows": True,
        "ticket": [
            "ids",
            "utc_window",
            "rank_map",
            "nccl_output",
            "step_times",
            "scheduler_events",
            "change_log",
        ],
    },
    "mid": {
        "response": {"S1": 30, "S2": 120, "S3": 480},
        "restore": {"S1": 360, "S2": 720, "S3": 2880},
        "owners": {"detect": "provider", "diagnose": "provider", "revalidate": "provider"},
        "time_zone": "PT, 06:00–22:00 seven days; pager for S1",
        "transport": "Socket",
        "backend": "Our staging run used TCP sockets; IB verbs not yet exercised",
        "shared": "yes",
        "billing": "prorated",
        "notice": "48 h",
        "ticket": ["ids", "utc_window", "rank_map", "nccl_output", "step_times"],
    },
}
PROFILE_BY_ORG = {
    "Aurora GPU Cloud": "premium",
    "Northwind Compute": "cheap",
    "Pacifica Neocloud": "mid",
}
EVIDENCE = {
    "detect": "Alert with node id, Xid or link event, UTC time",
    "isolate": "Scheduler drain record for the node",
    "diagnose": "DCGM level-3 report, ibstat, BMC event log",
    "repair": "Work order: part swapped or spare node id",
    "revalidate": "DCGM pass per GPU; all_reduce busbw vs hand-over baseline",
    "notify": "Ready notice with the revalidation results attached",
    "restart": "Job id and restored step",
    "checkpoint": "Checkpoint interval and storage path",
}
_CLOCKED = ("detect", "isolate", "diagnose", "repair", "revalidate", "notify")
_RESTORED = ("repair", "revalidate", "notify")


def _yes(value: str, comment: str = "") -> dict[str, str]:
    return {"value": value, "comment": comment}


def demo_answers(profile: dict[str, Any], bid: Bid) -> dict[str, Any]:
    owners = {
        "isolate": "provider",
        "repair": "provider",
        "notify": "provider",
        "restart": "buyer",
        "checkpoint": "buyer",
        **profile["owners"],
    }
    raw: dict[str, Any] = {}
    for step, owner in owners.items():
        raw[f"{step}.owner"] = owner
        raw[f"{step}.evidence"] = EVIDENCE[step]
        for sev in SEVERITIES:
            if step in _CLOCKED:
                raw[f"{step}.{sev}.response"] = profile["response"][sev]
            if step in _RESTORED:
                raw[f"{step}.{sev}.restore"] = profile["restore"][sev]
    spares = bid.spares_count or 0
    no_diag = "Tenant gets DCGM summaries; switch counters stay internal."
    # Coverage, spare count and place, replacement time and auto-drain are the bid's fields.
    raw.update(
        {
            "coverage.time_zone": profile["time_zone"],
            "ticket.contents": profile["ticket"],
            "escalation.path": "On-call engineer → fabric team lead (30 min) → head of ops (2 h)",
            "maintenance.notice": profile["notice"],
            "maintenance.drain_waits": _yes("no", "Windows are fixed: Tuesdays 02:00–04:00 CET.")
            if profile.get("fixed_windows")
            else _yes("yes"),
            "spares.reservation": "reserved" if spares > 1 else "shared" if spares else "none",
            "partial.running": _yes("yes"),
            "partial.billing": profile["billing"],
            "health.between_jobs": _yes("yes"),
            "health.buyer_checks": _yes("yes"),
            "diagnostics.shared": _yes(
                profile["shared"], "" if profile["shared"] == "yes" else no_diag
            ),
            "diagnostics.baseline_rerun": _yes("yes"),
            "path.transport": profile["transport"],
            "path.backend": profile["backend"],
            "byos.offered": _yes("no", "Only on our own hardware."),
        }
    )
    return raw


DEMO_KEPT_REASON = (
    "These are our standard terms as we give them to every customer, and we will settle the "
    "difference with the buyer before signing."
)


def demo_submit(*, bid: Bid, user: Any) -> None:
    """Submit as a demo provider would: a fact its standard terms state otherwise than the
    agreed ones is kept as stated, with its reason, so the buyer reads both values and why."""
    if unresolved_conflicts(bid=bid):
        conflicts_keep(bid=bid, user=user, reason=DEMO_KEPT_REASON)
    bid_submit(bid=bid, user=user)


@transaction.atomic
def seed_questionnaire_demo(capacity_request: CapacityRequest) -> None:
    """Attach the default set and answer it for the demo providers. Running it again is a no-op."""
    buyer_user = capacity_request.created_by
    qs = question_set_attach_default(capacity_request=capacity_request, user=buyer_user)
    if not qs.required_transport:
        qs.required_transport = "IB"
        qs.save(update_fields=["required_transport"])
    bids = Bid.objects.filter(request=capacity_request).select_related(
        "provider", "created_by", "request"
    )
    for bid in bids:
        profile_name = PROFILE_BY_ORG.get(bid.provider.name)
        if profile_name is None or BidQuestionnaire.objects.filter(bid=bid).exists():
            continue
        user = bid.created_by
        profile = PROFILES[profile_name]
        was_submitted = bid.latest_revision_number > 0 and bid.status == BidStatus.SUBMITTED
        if profile_name == "cheap" and was_submitted:
            # A first answer with slower clocks, then the improved one: a revision diff to show.
            slower = {**profile, "response": {"S1": 480, "S2": 960, "S3": 2880}}
            answers_save(bid=bid, user=user, raw=demo_answers(slower, bid))
            demo_submit(bid=bid, user=user)
        answers_save(bid=bid, user=user, raw=demo_answers(profile, bid))
        if was_submitted:
            demo_submit(bid=bid, user=user)
