"""Named roles shared by every test: buyer, buyer_colleague, provider, rival_provider, outsider;
buyer_requester and buyer_approver where a move needs a given role (the others are admins).

`world` builds one open request by the buyer with both providers invited and a submitted bid
from each, which is what most tenancy and page tests need.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client

from bids.models import Bid, CapacityRequest
from bids.services import bid_submit
from config.celery import app as celery_app
from orgs.choices import MemberRole, OrgKind
from orgs.models import Organization
from tests.factories import (
    PASSWORD,
    BidFactory,
    CapacityRequestFactory,
    InvitationFactory,
    MembershipFactory,
    OrganizationFactory,
    UserFactory,
)

IN_CI = bool(os.environ.get("CI"))

# One Chromium for the whole run: Playwright's sync API allows one instance per process.
pytest_plugins = ["tests.browser.fixtures", "tests.worker_fixtures"]


def require_service(available: bool, reason: str) -> None:
    """Skip a test whose service is absent on a laptop; in CI the absence is a failure."""
    if available:
        return
    if IN_CI:
        pytest.fail(f"{reason} (CI must provide it)")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: Any, django_db_blocker: Any) -> Any:
    """pytest-django's set-up, run only when a selected test needs the database, plus two things.

    After each transactional test (browser, worker, live server) Django empties every table.
    PostgreSQL's TRUNCATE of ~70 tables costs seconds a test; a DELETE of the few rows a test
    leaves costs milliseconds and ends in the same state (the foreign keys are deferred, so the
    order does not matter; SQLite's flush deletes too). Sequence resets keep TRUNCATE.

    Threads (live server, worker, concurrency tests) can leave a PostgreSQL session open; end
    them before pytest-django drops the test database, which it refuses to do otherwise."""
    from django.db import connection

    with pytest.MonkeyPatch.context() as patch:
        if connection.vendor == "postgresql":
            operations = type(connection.ops)
            patch.setattr(operations, "sql_flush", _flush_by_delete(operations.sql_flush))
        yield
        from tests.worker_fixtures import end_other_database_sessions

        with django_db_blocker.unblock():
            end_other_database_sessions()


def _flush_by_delete(truncate: Any) -> Any:
    def sql_flush(
        ops: Any, style: Any, tables: Any, *, reset_sequences: bool = False, **options: Any
    ) -> list[str]:
        if reset_sequences:
            return list(truncate(ops, style, tables, reset_sequences=True, **options))
        delete = style.SQL_KEYWORD("DELETE FROM")
        return [f"{delete} {style.SQL_FIELD(ops.quote_name(table))};" for table in tables]

    return sql_flush


@pytest.fixture(autouse=True)
def _eager_celery_by_default() -> Any:
    # Ordinary tests run tasks in-process; the real-worker tests switch this off themselves.
    previous = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    yield
    celery_app.conf.task_always_eager = previous


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings: Any) -> None:
    # PBKDF2 costs ~0.2 s a user; tests create many users and never need strong hashes.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@dataclass
class Role:
    user: Any
    org: Organization | None

    def client(self) -> Client:
        client = Client()
        client.force_login(self.user)
        return client


def _role(username: str, org: Organization | None, role: str = MemberRole.ADMIN) -> Role:
    user = UserFactory(username=username)
    if org is not None:
        MembershipFactory(user=user, organization=org, role=role)
    return Role(user=user, org=org)


@pytest.fixture
def buyer_org(db: Any) -> Organization:
    return OrganizationFactory(name="Helix Labs", slug="helix", kind=OrgKind.BUYER)


@pytest.fixture
def buyer(buyer_org: Organization) -> Role:
    return _role("alice", buyer_org)


@pytest.fixture
def buyer_colleague(buyer_org: Organization) -> Role:
    return _role("bob", buyer_org)


@pytest.fixture
def buyer_requester(buyer_org: Organization) -> Role:
    """A buyer who does the day-to-day work: may ask for an override, never approve one."""
    return _role("rhea", buyer_org, MemberRole.REQUESTER)


@pytest.fixture
def buyer_approver(buyer_org: Organization) -> Role:
    """The buyer's second signature: approves what a colleague asked for."""
    return _role("abel", buyer_org, MemberRole.APPROVER)


@pytest.fixture
def provider(db: Any) -> Role:
    return _role(
        "nora", OrganizationFactory(name="Northwind", slug="northwind", kind=OrgKind.PROVIDER)
    )


@pytest.fixture
def rival_provider(db: Any) -> Role:
    return _role(
        "rita", OrganizationFactory(name="Rival Cloud", slug="rival", kind=OrgKind.PROVIDER)
    )


@pytest.fixture
def outsider(db: Any) -> Role:
    """Signed in, member of a buyer organisation that has nothing to do with the request."""
    return _role("oscar", OrganizationFactory(name="Other Buyer", slug="other", kind=OrgKind.BUYER))


@dataclass
class World:
    request: CapacityRequest
    bid: Bid
    rival_bid: Bid


@pytest.fixture
def world(buyer: Role, provider: Role, rival_provider: Role) -> World:
    req = CapacityRequestFactory(buyer=buyer.org, sealed=False)
    InvitationFactory(request=req, provider=provider.org)
    InvitationFactory(request=req, provider=rival_provider.org)
    bid = BidFactory(request=req, provider=provider.org)
    rival_bid = BidFactory(request=req, provider=rival_provider.org, price_per_gpu_hour="2.9")
    bid_submit(bid=bid, user=provider.user)
    bid_submit(bid=rival_bid, user=rival_provider.user)
    bid.refresh_from_db()
    rival_bid.refresh_from_db()
    return World(request=req, bid=bid, rival_bid=rival_bid)


__all__ = ["IN_CI", "PASSWORD", "Role", "World", "require_service"]
