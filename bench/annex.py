"""Render a large contract annex (64 nodes, 12 collectives, the full questionnaire) and the
buyer's comparison summary at 20 and 200 bids.

Prints, for each, WeasyPrint's time inside a warm process (what a Celery worker pays per render)
and, on the same HTML, the time a cold Chromium `--print-to-pdf` takes, and the ratio of the two.

    .venv/bin/python bench/annex.py [--runs 7] [--chromium /usr/bin/chromium]
                                    [--summary-bids 20 200] [--no-annex]
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from sandbox import django_sandbox

COLLECTIVES = [
    "all_reduce",
    "all_gather",
    "reduce_scatter",
    "alltoall",
    "broadcast",
    "reduce",
    "sendrecv",
    "scatter",
    "gather",
    "hypercube",
    "all_reduce_bf16",
    "all_gather_bf16",
]


def _large_snapshot() -> dict:
    from acceptance.services.award import request_award
    from acceptance.services.fixtures import fixture_from_template
    from annexes.document.snapshot import contract_snapshot
    from bids.models import Bid, CapacityRequest
    from bids.services import request_close
    from contracts.defaults import DEFAULT_TERMS_TEMPLATE
    from contracts.services.terms import terms_create
    from demo.seed import seed_demo
    from engine.evidence.fixtures import DEFAULT_TEMPLATE
    from engine.evidence.large_message import LARGE_MESSAGE_BYTES

    seed_demo()
    request = CapacityRequest.objects.get()
    buyer = request.created_by
    assert buyer is not None
    fixture_from_template(capacity_request=request, user=buyer, template=DEFAULT_TEMPLATE)
    terms_create(capacity_request=request, user=buyer, template=DEFAULT_TERMS_TEMPLATE)
    request_close(capacity_request=request, user=buyer, confirmed=True)
    winner = Bid.objects.get(request=request, provider__name="Aurora GPU Cloud")
    request_award(capacity_request=request, bid=winner, user=buyer)
    snap = contract_snapshot(capacity_request=request)

    # Scale the agreed allocation up to 64 nodes and 12 collectives.
    spec = snap["fixture"]["spec"]
    spec["allocation"].update({"nodes": 64, "gpus": 512})
    spec["tests"]["nccl_tests"]["collectives"] = COLLECTIVES
    spec["thresholds"]["busbw_gbps"] = dict.fromkeys(COLLECTIVES, 350.0)
    sizes = [8 << i for i in range(31)]
    nodes = [f"gpu-node-{n:03d}" for n in range(64)]
    snap["baseline"] = {
        "large_message_bytes": LARGE_MESSAGE_BYTES,
        "nccl": [
            {
                "collective": c,
                "node": node,
                "ranks": 8 if node != "whole allocation" else 512,
                "command": f"mpirun -np 512 -N 8 ./build/{c}_perf -b 8 -e 8G -f 2 -g 1 -c 1",
                "nccl_version": "2.21.5",
                "large_message_busbw_min_gbps": 360.0 + (i % 7),
                "busbw_by_size": [[s, min(380.0, s / (1 << 22) * 9.5)] for s in sizes]
                if node == "whole allocation"
                else [],
            }
            for i, c in enumerate(COLLECTIVES)
            for node in ["whole allocation", *nodes]
        ],
        "versions": {"nccl": ["2.21.5"], "driver": ["550.90.07"]},
    }
    snap["acceptance"] = {
        "kind": "accepted",
        "by": "alice",
        "at": "2027-01-30T09:00:00+00:00",
        "reason": "",
        "gate_passed": True,
        "gate_summary": "All 96 mandatory checks pass.",
    }
    return snap


def _seconds(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _median_seconds(fn, runs: int) -> float:
    return statistics.median(_seconds(fn) for _ in range(runs))


def _summary_snapshot(bids: int) -> dict:
    """A scored request with `bids` varied bids, frozen as the buyer's comparison summary."""
    from comparison_data import add_bids, make_request

    from annexes.document.snapshot import comparison_snapshot
    from evaluation.services import request_score

    request, _ = make_request(f"summary-{bids}")
    add_bids(request, 0, bids)
    run = request_score(capacity_request=request)
    assert run.status == "done", run.error
    return comparison_snapshot(capacity_request=request)


def _compare(name: str, html: str, args: argparse.Namespace, workdir: Path) -> None:
    from annexes.document.render import render_pdf
    from annexes.services import pdf_page_count

    pdf = render_pdf(html)  # warm-up: fonts and the CSS machinery load once per worker
    pages = pdf_page_count(pdf)
    print(f"{name}: {len(html) / 1e6:.2f} MB of HTML, {pages} pages, {len(pdf) / 1e6:.2f} MB PDF")
    if not Path(args.chromium).exists():
        weasy = _median_seconds(lambda: render_pdf(html), args.runs)
        print(f"  WeasyPrint in a warm process: median {weasy:.2f} s over {args.runs} runs")
        print(f"  Chromium not found at {args.chromium}: no comparison")
        return

    page = workdir / f"{name.replace(' ', '-')}.html"
    page.write_text(html)
    out = workdir / "chromium.pdf"
    profiles = itertools.count()

    def chromium() -> None:
        # A new profile each time: a cold start, as a one-off print would be.
        command = [
            args.chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--no-first-run",
            f"--user-data-dir={workdir / f'profile-{next(profiles)}'}",
            "--no-pdf-header-footer",
            f"--print-to-pdf={out}",
            page.as_uri(),
        ]
        subprocess.run(command, check=True, capture_output=True, timeout=300)

    # Alternate the two so that a machine that speeds up or slows down during the run
    # (shared or throttled CPUs do) weighs on both alike.
    weasy_times, chromium_times = [], []
    for _ in range(args.runs):
        weasy_times.append(_seconds(lambda: render_pdf(html)))
        chromium_times.append(_seconds(chromium))
    weasy = statistics.median(weasy_times)
    cold = statistics.median(chromium_times)
    ratios = sorted(w / c for w, c in zip(weasy_times, chromium_times, strict=True))
    print(f"  WeasyPrint in a warm process: median {weasy:.2f} s over {args.runs} runs")
    print(f"  Chromium --print-to-pdf, cold process: median {cold:.2f} s, {args.runs} runs")
    print(
        f"  ratio WeasyPrint / Chromium: {weasy / cold:.2f} (target <= 0.75); "
        f"run by run {ratios[0]:.2f}-{ratios[-1]:.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--chromium", default=os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"))
    parser.add_argument(
        "--summary-bids",
        type=int,
        nargs="*",
        default=[20, 200],
        help="comparison summaries with this many bids (none: the contract annex only)",
    )
    parser.add_argument("--no-annex", action="store_true", help="only the comparison summaries")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        django_sandbox(workdir)
        from annexes.document.present import document_for
        from annexes.document.render import render_html, snapshot_sha256

        def html_of(snap: dict) -> str:
            return render_html(document_for(snap, sha256=snapshot_sha256(snap), version=1))

        if not args.no_annex:
            _compare("annex", html_of(_large_snapshot()), args, workdir)
        for bids in args.summary_bids:
            _compare(f"summary {bids} bids", html_of(_summary_snapshot(bids)), args, workdir)


if __name__ == "__main__":
    main()
