"""Load benchmark: the running product under concurrent requests, as ratios to /healthz.

Run: DATABASE_URL=postgres://clusterbid:clusterbid@127.0.0.1:5432/clusterbid \\
     .venv/bin/python bench/load.py [--seconds 8] [--concurrency 8] [--workers 3]

Needs PostgreSQL (from DATABASE_URL); it creates and drops its own database next to the one
named (`<name>_load`), never touching the named one. The gunicorn workers share the cache that
CACHE_URL names (Redis, as docker-compose has it), else each keeps its own in memory. It migrates
the load database, builds 50 requests × 20 bids and one 200-bid request through the project's
factories, scores them, starts gunicorn with DEBUG off on a free loopback port (from the checkout's
root, so with the image's `gunicorn.conf.py`), and measures each
endpoint for --seconds at --concurrency: /healthz, /api/v1/me/ (the floor under every API
answer: token, memberships and DRF with next to no body), the request list (API), one bid (API),
the comparison API and the comparison page (20 bids), every answer built afresh: no request carries
a validator (If-None-Match), so none is a 304. It prints req/s and p50/p95/p99 per endpoint, the
errors, the gunicorn workers' resident memory after the run, and one last line of ratios to
/healthz in the same run, which is what docs/benchmarks.md records: a shared machine's absolute
figures drift, ratios less so.
"""

from __future__ import annotations

import argparse
import http.client
import importlib
import os
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def load_database_url() -> tuple[str, str]:
    """(the load database's URL, the admin URL to create it from)."""
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        sys.exit("bench/load.py measures PostgreSQL: set DATABASE_URL=postgres://user:pw@host/db")
    parts = urlsplit(url)
    name = parts.path.lstrip("/") or "clusterbid"
    load = urlunsplit(parts._replace(path=f"/{name}_load"))
    admin = urlunsplit(parts._replace(path="/postgres"))
    return load, admin


def recreate_database(load_url: str, admin_url: str) -> None:
    import psycopg

    name = urlsplit(load_url).path.lstrip("/")
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def drop_database(load_url: str, admin_url: str) -> None:
    import psycopg

    name = urlsplit(load_url).path.lstrip("/")
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@dataclass
class Fixture:
    token: str
    session_cookie: str
    request_20: int
    request_200: int
    bid: int


def build_data(requests: int, bids_each: int, big: int) -> Fixture:
    """Requests and bids through the factories, every request scored, one buyer's keys."""
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.auth.models import User
    from django.utils import timezone

    from api.models import ApiToken, token_digest
    from bids.choices import BidStatus
    from bids.models import Bid, BidRevision, CapacityRequest
    from evaluation.services import request_score
    from orgs.choices import MemberRole, OrgKind
    from tests.factories import (
        BidFactory,
        CapacityRequestFactory,
        MembershipFactory,
        OrganizationFactory,
        UserFactory,
    )

    buyer = OrganizationFactory(name="Load buyer", kind=OrgKind.BUYER)
    user: User = UserFactory(username="load-buyer")  # type: ignore[assignment]
    MembershipFactory(user=user, organization=buyer, role=MemberRole.ADMIN)
    providers = [
        OrganizationFactory(name=f"Provider {i:03d}", kind=OrgKind.PROVIDER)
        for i in range(max(bids_each, big))
    ]

    def request_with(count: int) -> int:
        req: CapacityRequest = CapacityRequestFactory(buyer=buyer)  # type: ignore[assignment]
        for i, provider in enumerate(providers[:count]):
            bid: Bid = BidFactory(  # type: ignore[assignment]
                request=req,
                provider=provider,
                status=BidStatus.SUBMITTED,
                latest_revision_number=1,
                has_unsubmitted_changes=False,
                price_per_gpu_hour=Decimal("1.90") + Decimal((i * 37) % 120) / 100,
                spares_count=i % 3,
            )
            BidRevision.objects.create(
                bid=bid, number=1, submitted_at=timezone.now(), **bid.terms_dict()
            )
        request_score(capacity_request=req)
        return req.pk

    ids = [request_with(bids_each) for _ in range(requests)]
    big_id = request_with(big)
    secret = secrets.token_urlsafe(32)
    ApiToken.objects.create(user=user, name="load", prefix=secret[:8], digest=token_digest(secret))
    store = importlib.import_module(settings.SESSION_ENGINE).SessionStore()
    store[SESSION_KEY] = str(user.pk)
    store[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[-1]
    store[HASH_SESSION_KEY] = user.get_session_auth_hash()
    store.create()
    first_bid = Bid.objects.filter(request_id=ids[0]).order_by("pk").values_list("pk", flat=True)
    return Fixture(
        token=secret,
        session_cookie=f"{settings.SESSION_COOKIE_NAME}={store.session_key}",
        request_20=ids[0],
        request_200=big_id,
        bid=first_bid[0],
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_ready(port: int, deadline_s: float = 60) -> None:
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/healthz")
            if conn.getresponse().status == 200:
                return
        except OSError:
            time.sleep(0.3)
    sys.exit("gunicorn did not answer /healthz within a minute")


def browser_cookies(port: int, path: str, session_cookie: str) -> str:
    """The cookies a browser sends after its first visit: the session and the CSRF cookie the
    first page set (its forms carry a token made from it)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", path, headers={"Cookie": session_cookie})
    response = conn.getresponse()
    response.read()
    cookies = [c.split(";", 1)[0] for c in response.headers.get_all("Set-Cookie") or []]
    csrf = [c for c in cookies if c.startswith("csrftoken=")]
    if not csrf:
        sys.exit(f"{path} set no CSRF cookie: the pages would be measured as no browser sees them")
    return "; ".join([session_cookie, *csrf])


@dataclass
class Result:
    latencies: list[float] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)
    elapsed: float = 0.0


def hammer(port: int, path: str, headers: dict[str, str], seconds: float, workers: int) -> Result:
    """`workers` threads request `path` back to back for `seconds`; every non-200 counts."""
    result = Result()
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def loop() -> None:
        mine: list[float] = []
        errors: dict[str, int] = {}
        while time.monotonic() < stop:
            started = time.perf_counter()
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                conn.request("GET", path, headers=headers)
                response = conn.getresponse()
                response.read()
                conn.close()
                status = str(response.status)
            except OSError as exc:
                status = type(exc).__name__
            mine.append(time.perf_counter() - started)
            if status != "200":
                errors[status] = errors.get(status, 0) + 1
        with lock:
            result.latencies.extend(mine)
            for key, n in errors.items():
                result.errors[key] = result.errors.get(key, 0) + n

    threads = [threading.Thread(target=loop) for _ in range(workers)]
    began = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    result.elapsed = time.perf_counter() - began
    return result


def quantile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1] if values else 0.0


def worker_rss_mb(master_pid: int) -> list[float]:
    """Resident memory of the master's children (the gunicorn workers), from /proc."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if int(stat[1]) != master_pid:
                continue
            for line in (entry / "status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    out.append(int(line.split()[1]) / 1024)
        except (OSError, IndexError, ValueError):
            continue
    return sorted(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--seconds", type=float, default=8.0, help="per endpoint")
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--workers", type=int, default=3, help="gunicorn workers")
    ap.add_argument("--requests", type=int, default=50)
    ap.add_argument("--bids", type=int, default=20)
    ap.add_argument("--big", type=int, default=200, help="bids on the one large request")
    ap.add_argument("--keep", action="store_true", help="keep the load database afterwards")
    args = ap.parse_args()

    load_url, admin_url = load_database_url()
    recreate_database(load_url, admin_url)
    env = {
        **os.environ,
        "DATABASE_URL": load_url,
        "DEBUG": "false",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "SESSION_COOKIE_SECURE": "false",
        "CSRF_COOKIE_SECURE": "false",
        "LOG_LEVEL": "WARNING",
        "CACHE_URL": os.environ.get("CACHE_URL", ""),
        # WhiteNoise wants the folder to exist; the pages' static files are not measured.
        "STATIC_ROOT": tempfile.mkdtemp(prefix="cb-load-static-"),
    }
    env.pop("CELERY_BROKER_URL", None)  # scoring runs in this process, not through a worker
    os.environ.update(env)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command

    started = time.perf_counter()
    call_command("migrate", verbosity=0)
    data = build_data(args.requests, args.bids, args.big)
    print(
        f"data: {args.requests} requests × {args.bids} bids + one of {args.big}, scored, "
        f"in {time.perf_counter() - started:.0f} s"
    )
    from django.db import connections

    connections.close_all()

    port = free_port()
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "config.wsgi",
            "--workers",
            str(args.workers),
            "--bind",
            f"127.0.0.1:{port}",
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=env,
    )
    try:
        wait_ready(port)
        api = {"Authorization": f"Token {data.token}", "Accept": "application/json"}
        page = {
            "Cookie": browser_cookies(port, f"/requests/{data.request_20}/", data.session_cookie)
        }
        endpoints = [
            ("healthz", "/healthz", {}),
            # No target: the floor under every API answer (token, memberships, DRF), three
            # queries and a 160-byte body, measured beside the others.
            ("me", "/api/v1/me/", api),
            ("requests_list", "/api/v1/requests/", api),
            ("bid", f"/api/v1/bids/{data.bid}/", api),
            ("compare_api", f"/api/v1/requests/{data.request_20}/comparison/", api),
            ("compare_page", f"/requests/{data.request_20}/compare/", page),
            ("compare_page_200", f"/requests/{data.request_200}/compare/", page),
        ]
        rates: dict[str, float] = {}
        print(
            f"{'endpoint':22s} {'req/s':>8s} {'p50 ms':>8s} {'p95 ms':>8s} {'p99 ms':>8s} "
            f"{'requests':>9s}  errors"
        )
        for name, path, headers in endpoints:
            hammer(port, path, headers, 1.0, 2)  # warm each worker's caches and templates
            concurrency = 1 if name == "compare_page_200" else args.concurrency
            r = hammer(port, path, headers, args.seconds, concurrency)
            rates[name] = len(r.latencies) / r.elapsed
            ms = [x * 1000 for x in r.latencies]
            print(
                f"{name:22s} {rates[name]:8.1f} {quantile(ms, 50):8.0f} {quantile(ms, 95):8.0f} "
                f"{quantile(ms, 99):8.0f} {len(ms):9d}  {r.errors or 'none'}"
            )
        rss = worker_rss_mb(server.pid)
        print("gunicorn worker RSS after the run: " + ", ".join(f"{m:.0f} MB" for m in rss))
        print("(compare_page_200 runs at concurrency 1: its p50 is the 200-bid page's latency)")
        base = rates["healthz"] or 1.0
        print(
            "ratios: "
            + " ".join(
                f"{n}={rates[n] / base:.3f}"
                for n in ("requests_list", "bid", "compare_api", "compare_page")
            )
            + f" (floor: me={rates['me'] / base:.3f})"
        )
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        connections.close_all()
        if not args.keep:
            drop_database(load_url, admin_url)


if __name__ == "__main__":
    main()
