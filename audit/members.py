"""What the audit trail records about an organisation itself, on the object `org:<id>`, readable
by that organisation alone: each addition, role change and removal of a member (sent by
orgs.services as `membership_changed`), each API token a member creates or revokes
(api.services), and each export of its data (ops)."""

from __future__ import annotations

from typing import Any

from audit.models import Party
from audit.services import Audience, audit_record
from orgs.models import Organization


def record_membership_change(
    *,
    organization: Organization,
    user: Any,
    action: str,
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
    **_: Any,
) -> None:
    record_org_action(
        organization=organization, user=user, action=action, before=before, after=after
    )


def record_org_action(
    *,
    organization: Organization,
    user: Any,
    action: str,
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
) -> None:
    if organization.is_buyer:
        party, audience = Party.BUYER, Audience(buyer_org_id=organization.pk)
    else:
        party, audience = Party.PROVIDER, Audience(provider_org_id=organization.pk)
    audit_record(
        action=action,
        obj_key=f"org:{organization.pk}",
        request_id=None,
        user=user,
        org_id=organization.pk,
        party=party,
        audience=audience,
        before=before,
        after=after,
    )
