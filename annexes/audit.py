"""Annexes on the request's record: each render asked for, and each version issued. The buyer
reads every kind's entries; the awarded provider those of the kinds it may read (the contract
annex and the monthly statements), never the buyer-only bid comparison summary."""

from __future__ import annotations

from typing import Any

from annexes.models import AnnexJob, AnnexKind
from annexes.selectors import awarded_provider_id
from audit.services import Audience, audit_record, party_of


def record_annex(*, job: AnnexJob, action: str, user: Any, after: dict[str, Any]) -> None:
    request = job.request
    provider_id = awarded_provider_id(request, job.reservation)
    if job.kind == AnnexKind.COMPARISON or provider_id is None:
        audience = Audience(buyer_org_id=request.buyer_id)
    else:
        audience = Audience(buyer_org_id=request.buyer_id, provider_org_id=provider_id)
    party, org_id = party_of(
        user=user, buyer_org_id=request.buyer_id, provider_org_id=provider_id or 0
    )
    audit_record(
        action=action,
        obj_key=f"request:{request.pk}",
        request_id=request.pk,
        user=user,
        org_id=org_id,
        party=party,
        audience=audience,
        after={
            "kind": job.kind,
            **({"period": job.period} if job.period else {}),
            **({"reservation": job.reservation_id} if job.reservation_id else {}),
            **after,
        },
    )
