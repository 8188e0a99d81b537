"""SCIM 2.0 provisioning of an organisation's members (RFC 7643/7644, the Users resource).

The identity provider's SCIM client authenticates with a bearer token the organisation's
administrator generates on the single sign-on page. It creates members (an account without a
password, joined with the role it names or the organisation's least role), reads them,
switches them off (`active: false` removes the membership and refuses their sign-ins) and on
again, and deletes them. It sees and changes only the accounts it made for its organisation.
Each change is an entry on the organisation's audit trail (`scim.token`, `scim.provision`,
`scim.deprovision`).
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.db.models import QuerySet

from audit.members import record_org_action
from orgs.choices import ROLES_BY_KIND, OrgKind
from orgs.models import Membership, Organization
from orgs.selectors import is_member_admin
from sso.models import OidcConnection, ScimAccount
from sso.services import account_new

USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User"
MAX_PAGE = 100


class ScimError(Exception):
    """A refused SCIM call: its HTTP status, SCIM error type and detail (RFC 7644 §3.12)."""

    def __init__(self, status: int, detail: str, scim_type: str = "") -> None:
        super().__init__(detail)
        self.status, self.detail, self.scim_type = status, detail, scim_type


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@transaction.atomic
def token_generate(*, org: Organization, user: User) -> str:
    """A new bearer token for the provider's SCIM client; it replaces the previous one and is
    shown once (only its digest is stored)."""
    if not is_member_admin(org=org, user=user):
        raise PermissionDenied(f"Only an administrator of {org.name} can set up provisioning.")
    connection = OidcConnection.objects.select_for_update().filter(organization=org).first()
    if connection is None:
        raise ValidationError("Connect your identity provider first.")
    token = "scim_" + secrets.token_urlsafe(32)
    replaced = bool(connection.scim_token_sha256)
    connection.scim_token_sha256 = token_digest(token)
    connection.save(update_fields=["scim_token_sha256"])
    record_org_action(
        organization=org, user=user, action="scim.token", after={"replaced": replaced}
    )
    return token


def connection_for_token(token: str) -> OidcConnection | None:
    if not token:
        return None
    return (
        OidcConnection.objects.select_related("organization")
        .filter(scim_token_sha256=token_digest(token), enabled=True)
        .first()
    )


def accounts(*, connection: OidcConnection, user_name: str | None) -> QuerySet[ScimAccount]:
    found = ScimAccount.objects.select_related("user").filter(connection=connection)
    return found.filter(user__email__iexact=user_name) if user_name is not None else found


def account_get(*, connection: OidcConnection, pk: int) -> ScimAccount:
    account = accounts(connection=connection, user_name=None).filter(pk=pk).first()
    if account is None:
        raise ScimError(404, f"No user {pk} here.")
    return account


@transaction.atomic
def account_create(*, connection: OidcConnection, resource: dict[str, Any]) -> ScimAccount:
    org = Organization.objects.select_for_update().get(pk=connection.organization_id)
    email = _email(resource)
    if accounts(connection=connection, user_name=email).exists():
        raise ScimError(409, f"{email} is already provisioned.", "uniqueness")
    name = resource["name"] if isinstance(resource.get("name"), dict) else {}
    claims = {"given_name": name.get("givenName", ""), "family_name": name.get("familyName", "")}
    user = account_new(email=email, claims=claims)
    account = ScimAccount.objects.create(
        connection=connection, user=user, external_id=str(resource.get("externalId") or "")[:255]
    )
    role = _role(org, resource)
    Membership.objects.create(organization=org, user=user, role=role)
    _record(org, "scim.provision", after={"member": user.get_username(), "role": role})
    if not active_value(resource.get("active", True)):
        account_set_active(connection=connection, account=account, active=False)
    return account


@transaction.atomic
def account_set_active(
    *, connection: OidcConnection, account: ScimAccount, active: bool
) -> ScimAccount:
    """Off: the membership goes and sign-ins through the provider are refused. On again: the
    member is back with the organisation's least role, and the next sign-in's groups decide."""
    org = Organization.objects.select_for_update().get(pk=connection.organization_id)
    account = ScimAccount.objects.select_related("user").get(pk=account.pk)
    if account.active == active:
        return account
    user, name = account.user, account.user.get_username()
    membership = Membership.objects.filter(organization=org, user=user).first()
    if active and membership is None:
        role = _least_role(org)
        Membership.objects.create(organization=org, user=user, role=role)
        _record(org, "scim.provision", after={"member": name, "role": role})
    elif not active and membership is not None:
        _keep_an_admin(org, membership)
        membership.delete()
        _record(org, "scim.deprovision", before={"member": name, "role": membership.role})
    account.active = active
    account.save(update_fields=["active"])
    return account


@transaction.atomic
def account_delete(*, connection: OidcConnection, account: ScimAccount) -> None:
    """Switch the member off, then forget the provider's record: the account may sign in
    again only as a new person the provider vouches for."""
    account = account_set_active(connection=connection, account=account, active=False)
    account.user.oidc_identities.filter(connection=connection).delete()
    account.delete()


def apply_patch(*, connection: OidcConnection, account: ScimAccount, body: dict[str, Any]) -> None:
    """PatchOp: `active` is what changes membership; other attributes are the provider's and
    are accepted without effect (RFC 7644 §3.5.2)."""
    operations = body.get("Operations")
    if not isinstance(operations, list) or not operations:
        raise ScimError(400, "A PatchOp needs a list of Operations.", "invalidSyntax")
    for operation in operations:
        if not isinstance(operation, dict):
            raise ScimError(400, "Each operation is an object.", "invalidSyntax")
        value = operation.get("value")
        path = str(operation.get("path") or "")
        if path == "active":
            active = active_value(value)
        elif not path and isinstance(value, dict) and "active" in value:
            active = active_value(value["active"])
        else:
            continue
        account_set_active(connection=connection, account=account, active=active)


def resource(account: ScimAccount, *, location: str) -> dict[str, Any]:
    user = account.user
    role = (
        Membership.objects.filter(organization_id=account.connection.organization_id, user=user)
        .values_list("role", flat=True)
        .first()
    )
    return {
        "schemas": [USER_SCHEMA],
        "id": str(account.pk),
        "externalId": account.external_id,
        "userName": user.email,
        "name": {"givenName": user.first_name, "familyName": user.last_name},
        "emails": [{"value": user.email, "primary": True}],
        "active": account.active,
        "roles": [{"value": role}] if role else [],
        "meta": {
            "resourceType": "User",
            "created": account.created_at.isoformat(),
            "location": location,
        },
    }


def _email(resource: dict[str, Any]) -> str:
    user_name = resource.get("userName")
    if not isinstance(user_name, str) or not user_name.strip():
        raise ScimError(400, "userName is required.", "invalidValue")
    emails = [e for e in resource.get("emails") or [] if isinstance(e, dict)]
    primary = next((e.get("value") for e in emails if e.get("primary")), None)
    email = str(primary or (emails[0].get("value") if emails else user_name)).strip().lower()
    try:
        validate_email(email)
    except ValidationError:
        raise ScimError(400, f"“{email[:100]}” is not an e-mail address.", "invalidValue") from None
    return email


def _role(org: Organization, resource: dict[str, Any]) -> str:
    """The role the resource names (`roles[].value`), if the organisation has it; else its
    least role, until the first sign-in's groups decide."""
    allowed = ROLES_BY_KIND[OrgKind(org.kind)]
    for item in resource.get("roles") or []:
        value = item.get("value") if isinstance(item, dict) else None
        if value in allowed:
            return str(value)
    return _least_role(org)


def _least_role(org: Organization) -> str:
    return str(ROLES_BY_KIND[OrgKind(org.kind)][0])


def active_value(value: object) -> bool:
    """A boolean, or the strings some providers send ("True", "false")."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    raise ScimError(400, "active must be true or false.", "invalidValue")


def _keep_an_admin(org: Organization, membership: Membership) -> None:
    others = Membership.objects.filter(organization=org, role="admin").exclude(pk=membership.pk)
    if membership.role == "admin" and not others.exists():
        raise ScimError(
            409, f"{membership.user.get_username()} is the last administrator of {org.name}."
        )


def _record(
    org: Organization,
    action: str,
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
) -> None:
    # The provider's client acts, not a person: a system entry with no actor.
    record_org_action(organization=org, user=None, action=action, before=before, after=after)
