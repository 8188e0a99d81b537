"""Where the API's time goes, per endpoint, on the load benchmark's data.

Run bench/load.py once with --keep, then point this at the database it left:
    DATABASE_URL=postgres://clusterbid:clusterbid@127.0.0.1:5432/<name>_load \\
        .venv/bin/python bench/profile_api.py [--repeat 20] [--top 25] [--only bid]

Through Django's test client (no gunicorn, no network), as the load buyer with an API token (and
its browser session for the comparison page): per endpoint the queries one call makes (and each
one's SQL head), the median wall and CPU time per call (this process's CPU: PostgreSQL's work is
not in it), and, with --top, the functions that took the most cumulative time under cProfile.
Reads only, apart from the token. `--cpu-only` prints one line per endpoint, for comparing two
checkouts on the same database: run each in turn, more than once, on a quiet machine.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import secrets
import statistics
import sys
import time
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _record(into: list[str], execute: Any, sql: str, *rest: Any) -> Any:
    into.append(sql)
    return execute(sql, *rest)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--sort", default="cumulative", help="cProfile order: cumulative, tottime…")
    ap.add_argument("--only", default="", help="one endpoint name")
    ap.add_argument("--sql", action="store_true", help="print each query's head")
    ap.add_argument("--cpu-only", action="store_true", help="one line of times per endpoint")
    args = ap.parse_args()
    if not os.environ.get("DATABASE_URL", "").endswith("_load"):
        sys.exit("point DATABASE_URL at the database bench/load.py --keep left (<name>_load)")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("DEBUG", "false")
    os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    os.environ.pop("CELERY_BROKER_URL", None)  # as bench/load.py: /healthz without a broker
    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.db import connection
    from django.test import Client

    from api.models import ApiToken, token_digest
    from bids.models import Bid, CapacityRequest

    user = User.objects.get(username="load-buyer")
    secret = secrets.token_urlsafe(32)
    ApiToken.objects.create(
        user=user, name="profile", prefix=secret[:8], digest=token_digest(secret)
    )
    first = CapacityRequest.objects.filter(buyer__name="Load buyer").order_by("pk").first()
    assert first is not None, "no load data: run bench/load.py --keep first"
    bid = Bid.objects.filter(request=first).order_by("pk").values_list("pk", flat=True)[0]
    client = Client(HTTP_AUTHORIZATION=f"Token {secret}", HTTP_ACCEPT="application/json")
    browser = Client()
    browser.force_login(user)
    endpoints = [
        ("healthz", client, "/healthz"),  # the floor: what bench/load.py divides by
        ("me", client, "/api/v1/me/"),  # token, memberships and DRF, with next to no body
        ("requests_list", client, "/api/v1/requests/"),
        ("bid", client, f"/api/v1/bids/{bid}/"),
        ("compare_api", client, f"/api/v1/requests/{first.pk}/comparison/"),
        ("compare_page", browser, f"/requests/{first.pk}/compare/"),
    ]
    for name, caller, path in endpoints:
        if args.only and name != args.only:
            continue
        assert caller.get(path).status_code == 200, path  # warm
        queries: list[str] = []
        with connection.execute_wrapper(partial(_record, queries)):
            response = caller.get(path)
        walls, cpus = [], []
        for _ in range(args.repeat):
            wall, cpu = time.perf_counter(), time.process_time()
            caller.get(path)
            cpus.append(time.process_time() - cpu)
            walls.append(time.perf_counter() - wall)
        times = (
            f"{statistics.median(walls) * 1000:.1f} ms wall, "
            f"{statistics.median(cpus) * 1000:.1f} ms CPU per call (median of {args.repeat})"
        )
        if args.cpu_only:
            print(f"{name:14s} {len(queries):3d} queries  {times}")
            continue
        print(f"\n== {name} {path}: {len(queries)} queries, {len(response.content)} bytes")
        if args.sql:
            for sql in queries:
                print(f"   {sql[:160]}")
        print(f"   {times}")
        if not args.top:
            continue
        profile = cProfile.Profile()
        profile.enable()
        for _ in range(args.repeat):
            caller.get(path)
        profile.disable()
        pstats.Stats(profile).sort_stats(args.sort).print_stats(args.top)
    ApiToken.objects.filter(user=user, name="profile").delete()


if __name__ == "__main__":
    main()
