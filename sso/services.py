"""Setting up an organisation's sign-in through its identity provider, and what one sign-in
does: provision the account and its membership, or bring the role in line with the groups.

Only the organisation's administrators configure it (`PermissionDenied` otherwise). A sign-in
whose groups map to no role is refused (`SignInRefused`, in words for the person). Each
configuration, provisioning and role change is an entry on the organisation's audit trail
(`sso.configure`, `sso.provision`, `sso.role`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from audit.members import record_org_action
from core import secrets
from engine.groupmap import (
    GroupMapError,
    GroupRule,
    groups_of,
    parse_group_roles,
    role_for_groups,
)
from orgs.choices import MemberRole
from orgs.models import Membership, Organization
from orgs.selectors import is_member_admin, roles_for
from sso.discovery import discover
from sso.models import OidcConnection, OidcDomain, OidcIdentity, ScimAccount

# Lowest first: a person in several mapped groups gets the highest role among them.
ROLE_RANK = (MemberRole.REQUESTER, MemberRole.ENGINEER, MemberRole.APPROVER, MemberRole.ADMIN)
_DOMAIN = re.compile(r"^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$")


class SignInRefused(Exception):
    """A sign-in the identity provider vouched for, refused here; the message says why."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class ConnectionInput:
    issuer: str
    client_id: str
    client_secret: str  # empty keeps the stored one
    email_domains: str
    groups_claim: str
    group_roles: str
    enabled: bool


@transaction.atomic
def connection_save(*, org: Organization, user: User, data: ConnectionInput) -> OidcConnection:
    """Create or change `org`'s connection; its endpoints are read from the issuer's discovery
    document, so a mistyped issuer is refused here rather than at the next sign-in."""
    org = Organization.objects.select_for_update().get(pk=org.pk)
    if not is_member_admin(org=org, user=user):
        raise PermissionDenied(f"Only an administrator of {org.name} can set up its sign-in.")
    current = OidcConnection.objects.filter(organization=org).first()
    rules = _rules(org=org, text=data.group_roles)
    domains = _domains(data.email_domains, connection=current)
    if current is None and not data.client_secret:
        raise ValidationError({"client_secret": "Give the client secret the provider issued."})
    endpoints = discover(data.issuer.strip())
    before = _state(current) if current else None
    unlinked = 0
    if current is not None and current.issuer.rstrip("/") != data.issuer.strip().rstrip("/"):
        # Subjects are unique per issuer only: another provider's "123" is another person.
        unlinked, _ = current.identities.all().delete()
    connection = current or OidcConnection(organization=org)
    connection.issuer = data.issuer.strip()
    connection.client_id = data.client_id.strip()
    if data.client_secret:
        connection.client_secret_encrypted = secrets.encrypt(data.client_secret.encode())
    connection.groups_claim = data.groups_claim.strip() or "groups"
    connection.group_roles = [[rule.group, rule.role] for rule in rules]
    connection.enabled = data.enabled
    for name, value in vars(endpoints).items():
        setattr(connection, name, value)
    connection.updated_at, connection.updated_by = timezone.now(), user
    connection.save()
    connection.domains.exclude(domain__in=domains).delete()
    for domain in domains:
        OidcDomain.objects.get_or_create(connection=connection, domain=domain)
    after = {**_state(connection), "secret_changed": bool(data.client_secret)}
    if unlinked:
        after["accounts_unlinked"] = unlinked
    record_org_action(
        organization=org, user=user, action="sso.configure", before=before, after=after
    )
    return connection


@transaction.atomic
def oidc_sign_in(*, connection: OidcConnection, claims: dict[str, Any]) -> User:
    """The account the provider's claims sign in as, a member of the connection's organisation
    with the role its groups map to. The first sign-in makes the account and the membership;
    later ones bring the role in line with the groups."""
    org = Organization.objects.select_for_update().get(pk=connection.organization_id)
    subject, email = str(claims.get("sub") or ""), str(claims.get("email") or "").strip().lower()
    if not subject or not email:
        raise SignInRefused(f"{_host(connection)} did not say who you are (subject and e-mail).")
    groups = groups_of(claims.get(connection.groups_claim))
    role = role_for_groups(groups, rules=connection.rules(), rank=ROLE_RANK)
    if role is None:
        yours = ", ".join(f"“{g}”" for g in groups[:10]) or "none"
        raise SignInRefused(
            f"None of your groups at {_host(connection)} gives you a role in {org.name} (your "
            f"groups: {yours}). Ask an administrator of {org.name} to map one of them."
        )
    if ScimAccount.objects.filter(
        connection=connection,
        active=False,
        user__oidc_identities__connection=connection,
        user__oidc_identities__subject=subject,
    ).exists():
        raise SignInRefused(f"{_host(connection)} has switched off your access to {org.name}.")
    identity = (
        OidcIdentity.objects.select_for_update()
        .select_related("user")
        .filter(connection=connection, subject=subject)
        .first()
    )
    if identity is None:
        identity = OidcIdentity.objects.create(
            connection=connection, subject=subject, user=_account_for(connection, email, claims)
        )
    elif not identity.user.is_active:
        raise SignInRefused("This account is switched off. Ask an administrator of Clusterbid.")
    identity.last_sign_in_at = timezone.now()
    identity.save(update_fields=["last_sign_in_at"])
    _membership(org=org, user=identity.user, role=role, subject=subject)
    return identity.user


def _account_for(connection: OidcConnection, email: str, claims: dict[str, Any]) -> User:
    """The account the provider's SCIM client made for this address, not yet signed in
    through it (it belongs to this provider); otherwise a new one."""
    made = (
        ScimAccount.objects.select_related("user")
        .filter(connection=connection, user__email=email)
        .exclude(user__oidc_identities__connection=connection)
        .first()
    )
    if made is not None:
        if not made.active:
            raise SignInRefused("Your provider has switched off your access.")
        return made.user
    return account_new(email=email, claims=claims)


def _membership(*, org: Organization, user: User, role: str, subject: str) -> None:
    membership = Membership.objects.filter(organization=org, user=user).first()
    if membership is None:
        Membership.objects.create(organization=org, user=user, role=role)
        after = {"member": user.get_username(), "role": role, "subject": subject}
        record_org_action(organization=org, user=user, action="sso.provision", after=after)
        return
    if membership.role == role or _last_admin(membership, role):
        return
    before = {"member": user.get_username(), "role": membership.role}
    membership.role = role
    membership.save(update_fields=["role"])
    after = {"member": user.get_username(), "role": role}
    record_org_action(organization=org, user=user, action="sso.role", before=before, after=after)


def _last_admin(membership: Membership, role: str) -> bool:
    """An organisation always keeps one administrator: groups never demote the last one."""
    if membership.role != MemberRole.ADMIN or role == MemberRole.ADMIN:
        return False
    others = Membership.objects.filter(organization_id=membership.organization_id, role="admin")
    return not others.exclude(pk=membership.pk).exists()


def account_new(*, email: str, claims: dict[str, Any]) -> User:
    """A fresh account with no password: it signs in only through the provider. Never an
    existing account found by address (see OidcIdentity)."""
    base = re.sub(r"[^\w.@+-]", "", email)[:140] or "member"
    for n in range(1, 100):
        username = base if n == 1 else f"{base}-{n}"
        if User.objects.filter(username=username).exists():
            continue
        try:
            with transaction.atomic():
                user = User.objects.create_user(
                    username=username,
                    email=email,
                    first_name=str(claims.get("given_name") or "")[:150],
                    last_name=str(claims.get("family_name") or "")[:150],
                )
        except IntegrityError:
            continue  # taken in between by a concurrent sign-in
        return user
    raise SignInRefused("No free username is left for this address. Ask an administrator.")


def _rules(*, org: Organization, text: str) -> tuple[GroupRule, ...]:
    try:
        rules = parse_group_roles(text, roles=dict(roles_for(org)))
    except GroupMapError as exc:
        raise ValidationError({"group_roles": str(exc)}) from None
    if not rules:
        raise ValidationError({"group_roles": "Map at least one group to a role."})
    return rules


def _domains(text: str, *, connection: OidcConnection | None) -> list[str]:
    domains = sorted({d.strip().lower().lstrip("@") for d in re.split(r"[\s,]+", text) if d})
    for domain in domains:
        if not _DOMAIN.match(domain):
            raise ValidationError({"email_domains": f"“{domain}” is not a domain name."})
    taken = OidcDomain.objects.filter(domain__in=domains)
    if connection is not None:
        taken = taken.exclude(connection=connection)
    if clash := taken.values_list("domain", flat=True).first():
        raise ValidationError(
            {"email_domains": f"{clash} already leads to another organisation's sign-in."}
        )
    return domains


def _state(connection: OidcConnection) -> dict[str, Any]:
    return {
        "issuer": connection.issuer,
        "client_id": connection.client_id,
        "domains": sorted(connection.domains.values_list("domain", flat=True)),
        "groups_claim": connection.groups_claim,
        "group_roles": connection.group_roles,
        "enabled": connection.enabled,
    }


def _host(connection: OidcConnection) -> str:
    return urlsplit(connection.issuer).netloc or "your identity provider"
