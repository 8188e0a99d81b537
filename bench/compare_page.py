"""Time the comparison page with 2 and with 200 bids, and count its SQL queries.

Run: .venv/bin/python bench/compare_page.py [--bids 200] [--repeat 30]
Builds a throwaway SQLite database in a temporary directory (never the project's), scores the
bids once, then renders the page with Django's test client. Target: p50 under 250 ms with
200 bids, and the same number of queries for 2 and for 200 bids.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
_TMP = tempfile.mkdtemp(prefix="cb-bench-")
os.environ["DATABASE_URL"] = f"sqlite:///{_TMP}/bench.sqlite3"
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.pop("CELERY_BROKER_URL", None)

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.urls import reverse  # noqa: E402
from django.utils import timezone  # noqa: E402

from bids.choices import BidStatus  # noqa: E402
from bids.models import Bid, BidRevision, CapacityRequest, Invitation  # noqa: E402
from evaluation.services import request_score  # noqa: E402
from orgs.choices import OrgKind  # noqa: E402
from orgs.models import Membership, Organization  # noqa: E402


def make_request() -> tuple[CapacityRequest, Any]:
    buyer = Organization.objects.create(name="Bench buyer", slug="bench", kind=OrgKind.BUYER)
    user = get_user_model().objects.create_user("bench", password="bench-pass")
    Membership.objects.create(user=user, organization=buyer)
    start = timezone.localdate() + timedelta(days=60)
    req = CapacityRequest.objects.create(
        buyer=buyer,
        title="Bench: 16 × H200",
        status="open",
        gpu_model="H200",
        gpu_count=16,
        nodes=2,
        gpus_per_node=8,
        max_leaf_switches=1,
        acceptable_regions=["eu", "nordics"],
        reservation_start=start,
        reservation_end=start + timedelta(days=88),
        bid_deadline=timezone.now() + timedelta(days=14),
        sealed=False,
    )
    return req, user


def add_bids(req: CapacityRequest, start: int, count: int) -> None:
    orgs = Organization.objects.bulk_create(
        Organization(name=f"Provider {i:03d}", slug=f"p-{i}", kind=OrgKind.PROVIDER)
        for i in range(start, start + count)
    )
    Invitation.objects.bulk_create(Invitation(request=req, provider=o) for o in orgs)
    bids = Bid.objects.bulk_create(
        Bid(
            request=req,
            provider=o,
            status=BidStatus.SUBMITTED,
            latest_revision_number=1,
            has_unsubmitted_changes=False,
            price_per_gpu_hour=Decimal("1.90") + Decimal((i * 37) % 120) / 100,
            region="us-west" if i % 10 == 9 else ("eu", "nordics")[i % 2],
            site=f"Site {i}",
            available_start=req.reservation_start - timedelta(days=i % 20),
            gpu_model="H200",
            nodes=2,
            gpus_per_node=8,
            node_replacement_hours=Decimal((4, 8, 24, 72)[i % 4]),
            spares_count=i % 3,
            spares_location=("none", "same_fabric_domain", "same_site")[i % 3],
            coverage=("24x7", "extended", "business_hours")[i % 3],
            declared_node_mtbf_hours=(None, 3000, 6000, 9000)[i % 4],
            health_checks_auto_drain=i % 2 == 0,
        )
        for i, o in zip(range(start, start + count), orgs, strict=True)
    )
    BidRevision.objects.bulk_create(
        BidRevision(bid=b, number=1, submitted_at=timezone.now(), **b.terms_dict()) for b in bids
    )


def measure(client: Client, url: str, repeat: int) -> tuple[float, float, int, int]:
    client.get(url)  # warm: template loading, session
    executed: list[str] = []

    def count(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        executed.append(sql)
        return execute(sql, params, many, context)

    # An execute wrapper sees every query whatever DEBUG says; the query log (what
    # CaptureQueriesContext reads) stayed empty with DEBUG off, so this printed 0.
    with connection.execute_wrapper(count):
        response = client.get(url)
    assert response.status_code == 200, response.status_code
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        client.get(url)
        times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    return statistics.median(times), p95, len(executed), len(response.content)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bids", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    req, user = make_request()
    client = Client()
    client.force_login(user)
    url = reverse("evaluation:request-compare", args=[req.pk])

    add_bids(req, 0, 2)
    request_score(request=req)
    small = measure(client, url, args.repeat)

    add_bids(req, 2, args.bids - 2)
    t0 = time.perf_counter()
    run = request_score(request=req)
    scored_s = time.perf_counter() - t0
    assert run.status == "done", run.error
    large = measure(client, url, args.repeat)

    for n, (p50, p95, queries, size) in ((2, small), (args.bids, large)):
        print(
            f"{n:>4} bids: p50 {p50:7.1f} ms  p95 {p95:7.1f} ms  "
            f"{queries} queries  {size / 1024:,.0f} KiB  ({args.repeat} renders)"
        )
    print(f"scoring task for {args.bids} bids (incl. sensitivity, curves, rows): {scored_s:.2f} s")
    same = "same" if small[2] == large[2] else "DIFFERENT"
    print(f"query count: {same} for 2 and {args.bids} bids")


if __name__ == "__main__":
    main()
