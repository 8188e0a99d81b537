"""Named roles shared by every test: buyer, buyer_colleague, provider, rival_provider, outsider;
buyer_requester and buyer_approver where a move needs a given role (the others are admins).

`world` builds one open request by the buyer with both providers invited and a submitted bid
from each, which is what most tenancy and page tests need.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
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


# Under pytest-xdist (`-n 2`) each worker process is named gw0, gw1, ...; alone, "main".
# pytest-django already gives each worker a test database of its own (test_<name>_gw0, ...).
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "main")
BROKER_GROUP = "celery-broker"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests that run a Celery worker (thread or process) on the shared broker run one after
    another on one xdist worker (`--dist loadgroup`): a worker started by one process answers
    the other process's broadcast ping, which test_healthz_says_no_worker_when_none_runs must
    not see. The tests marked `worker` join that group here; the others carry the mark."""
    for item in items:
        if item.get_closest_marker("worker") is not None:
            item.add_marker(pytest.mark.xdist_group(BROKER_GROUP))


@pytest.fixture(scope="session", autouse=True)
def _own_cache_and_media(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Each test process gets keys of its own in the (shared, Redis) cache and a MEDIA_ROOT of
    its own, so two xdist workers never see each other's rate-limit counters, cached values or
    stored files (both number their rows from 1, so their names would be the same). The process
    id in the prefix also keeps apart two runs sharing one Redis; the keys go at the end. The
    files also stay out of the checkout's media/."""
    from django.conf import settings
    from django.test import override_settings

    caches = {name: {**params} for name, params in settings.CACHES.items()}
    for params in caches.values():
        params["KEY_PREFIX"] = f"clusterbid-test-{WORKER}-{os.getpid()}"
    media = tmp_path_factory.mktemp("media")
    # Every test client comes from 127.0.0.1, so per-address limits would add up across the
    # whole run; the tests of those limits (tests/bids/onboarding) set their own.
    lifted = {"SUPPLIER_JOIN_RATE": "100000/hour", "SUPPLIER_JOIN_BAD_LINK_RATE": "100000/hour"}
    with contextlib.ExitStack() as stack:
        storages = stack.enter_context(_file_storage_under_test())
        stack.enter_context(
            override_settings(CACHES=caches, MEDIA_ROOT=media, **storages, **lifted)
        )
        yield
        clear_cache()


@contextlib.contextmanager
def _file_storage_under_test() -> Iterator[dict[str, Any]]:
    """`TEST_FILE_STORAGE=s3` runs the tests with every stored file in an S3 bucket (moto's
    server on loopback), as FILE_STORAGE=s3 runs the product; otherwise on local disk."""
    kind = os.environ.get("TEST_FILE_STORAGE", "local")
    if kind == "local":
        yield {}
        return
    if kind != "s3":
        raise pytest.UsageError(f"TEST_FILE_STORAGE must be local or s3, not {kind!r}")
    from django.conf import settings

    from tests.ops.s3 import moto_bucket

    with moto_bucket() as options:
        default = {"BACKEND": "storages.backends.s3.S3Storage", "OPTIONS": options}
        yield {"STORAGES": {**settings.STORAGES, "default": default}}


def clear_cache() -> None:
    """Empty this process's part of the cache. Django's RedisCache.clear() is FLUSHDB: it would
    also wipe the keys of the other xdist worker (and of anything else on that Redis database),
    so on Redis delete only the keys under this process's KEY_PREFIX."""
    from django.core.cache import caches
    from django.core.cache.backends.redis import RedisCache

    backend = caches["default"]
    if not isinstance(backend, RedisCache) or not backend.key_prefix:
        backend.clear()
        return
    client = backend._cache.get_client(write=True)
    keys = list(client.scan_iter(match=f"{backend.key_prefix}:*", count=1000))
    if keys:
        client.delete(*keys)


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


__all__ = ["BROKER_GROUP", "IN_CI", "PASSWORD", "Role", "World", "clear_cache", "require_service"]
