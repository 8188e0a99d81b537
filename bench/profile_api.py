"""Where the API's time goes, per endpoint, on the load benchmark's data.

Run bench/load.py once with --keep, then point this at the database it left:
    DATABASE_URL=postgres://clusterbid:clusterbid@127.0.0.1:5432/<name>_load \\
        .venv/bin/python bench/profile_api.py [--repeat 20] [--top 25] [--only bid]

Through Django's test client (no gunicorn, no network), as the load buyer with an API token: per
endpoint the queries one call makes (and each one's SQL head), the mean time per call, and the
functions that took the most cumulative time under cProfile. Reads only, apart from the token.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import secrets
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--only", default="", help="one endpoint name")
    ap.add_argument("--sql", action="store_true", help="print each query's head")
    args = ap.parse_args()
    if not os.environ.get("DATABASE_URL", "").endswith("_load"):
        sys.exit("point DATABASE_URL at the database bench/load.py --keep left (<name>_load)")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("DEBUG", "false")
    os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

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
    endpoints = [
        ("healthz", "/healthz"),  # the floor: what bench/load.py divides by
        ("me", "/api/v1/me/"),  # token, memberships and DRF, with next to no body
        ("requests_list", "/api/v1/requests/"),
        ("bid", f"/api/v1/bids/{bid}/"),
        ("compare_api", f"/api/v1/requests/{first.pk}/comparison/"),
    ]
    client = Client(HTTP_AUTHORIZATION=f"Token {secret}", HTTP_ACCEPT="application/json")
    for name, path in endpoints:
        if args.only and name != args.only:
            continue
        assert client.get(path).status_code == 200, path  # warm
        with CaptureQueriesContext(connection) as queries:
            response = client.get(path)
        print(f"\n== {name} {path}: {len(queries)} queries, {len(response.content)} bytes")
        if args.sql:
            for q in queries.captured_queries:
                print(f"   {q['time']}s {q['sql'][:160]}")
        started = time.perf_counter()
        for _ in range(args.repeat):
            client.get(path)
        print(f"   {(time.perf_counter() - started) / args.repeat * 1000:.1f} ms per call")
        profile = cProfile.Profile()
        profile.enable()
        for _ in range(args.repeat):
            client.get(path)
        profile.disable()
        pstats.Stats(profile).sort_stats("cumulative").print_stats(args.top)
    ApiToken.objects.filter(user=user, name="profile").delete()


if __name__ == "__main__":
    main()
