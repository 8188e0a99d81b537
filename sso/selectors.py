"""Reading the organisations' sign-in connections."""

from __future__ import annotations

from core import secrets
from orgs.models import Organization
from sso.models import OidcConnection


def connection_of(*, org: Organization) -> OidcConnection | None:
    return (
        OidcConnection.objects.select_related("organization")
        .prefetch_related("domains")
        .filter(organization=org)
        .first()
    )


def connection_for_sign_in(*, who: str) -> OidcConnection | None:
    """The enabled connection an e-mail address (by its domain) or an organisation's short
    name leads to; None when neither does."""
    wanted = who.strip().lower()
    enabled = OidcConnection.objects.select_related("organization").filter(enabled=True)
    if "@" in wanted:
        return enabled.filter(domains__domain=wanted.rpartition("@")[2]).first()
    return enabled.filter(organization__slug=wanted).first() if wanted else None


def enabled_connection(*, pk: int) -> OidcConnection | None:
    return OidcConnection.objects.select_related("organization").filter(pk=pk, enabled=True).first()


def client_secret(connection: OidcConnection) -> str:
    what = f"the single sign-on client secret of {connection.organization.name}"
    return secrets.decrypt(connection.client_secret_encrypted, what=what).decode()
