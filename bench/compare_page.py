"""Time the comparison page with 2 and with 200 bids, and count its SQL queries.

Run: .venv/bin/python bench/compare_page.py [--bids 200] [--repeat 30]
Builds a throwaway SQLite database in a temporary directory (never the project's), scores the
bids once, then renders the page with Django's test client. Target: p50 under 250 ms with
200 bids, and the same number of queries for 2 and for 200 bids.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from sandbox import django_sandbox

django_sandbox()

from comparison_data import add_bids, make_request  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.urls import reverse  # noqa: E402

from evaluation.services import request_score  # noqa: E402


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
    req, user = make_request()
    client = Client()
    client.force_login(user)
    url = reverse("evaluation:request-compare", args=[req.pk])

    add_bids(req, 0, 2)
    request_score(capacity_request=req)
    small = measure(client, url, args.repeat)

    add_bids(req, 2, args.bids - 2)
    t0 = time.perf_counter()
    run = request_score(capacity_request=req)
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
