"""Time five 9 MB step-time uploads to one burn-in run, each until its checks are current.

Run: .venv/bin/python bench/recheck.py [--uploads 5] [--ranks 4096] [--steps 50]
Builds a throwaway SQLite database and media folder in a temporary directory (never the
project's), awards a request through the project's factories and services, then uploads
`--uploads` different step-time CSVs (4,096 ranks × 50 steps ≈ 9.5 MB each) one after another
through `evidence_upload`, with the parse and re-check tasks run in-process as each commit
queues them. Each figure is the wall time from the upload to "checks current" (the run's
checks done for its latest evidence version).

It runs the sequence twice in the same process: as the product does it (a re-check rebuilds
each file's result from what its parse stored), and with every re-check parsing every stored
file again (forced by clearing the stored result's format), to show what reuse saves. Target:
the fifth upload is no slower than the first.
"""

from __future__ import annotations

import argparse
import logging
import random
import statistics
import time
from typing import Any

from sandbox import django_sandbox

django_sandbox(prefix="cb-bench-recheck-")

from django.conf import settings  # noqa: E402
from django.core.files.uploadedfile import SimpleUploadedFile  # noqa: E402
from django.db import transaction  # noqa: E402
from django.db.models import F  # noqa: E402

from acceptance.models import BurnInRun, ChecksState, Evidence  # noqa: E402
from acceptance.services import burnin as services  # noqa: E402

logging.disable(logging.CRITICAL)  # the in-process tasks log every run
settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def step_csv(seed: int, ranks: int, steps: int) -> bytes:
    rng = random.Random(seed)
    lines = ["rank,node,step,seconds,timestamp"]
    for step in range(steps):
        stamp = f"2026-11-04T10:{step % 60:02d}:00Z"
        for rank in range(ranks):
            seconds = 1.0 + rng.random() * 0.02
            lines.append(f"{rank},node-{rank // 8:04d},{step},{seconds:.5f},{stamp}")
    return ("\n".join(lines) + "\n").encode()


def new_run(tag: str) -> tuple[BurnInRun, Any]:
    from bids.models import Bid, CapacityRequest
    from bids.services import bid_submit
    from orgs.choices import OrgKind
    from orgs.models import Organization
    from tests.acceptance.burnin.helpers import award, two_node_spec
    from tests.conftest import World, _role
    from tests.factories import BidFactory, CapacityRequestFactory, InvitationFactory
    from tests.factories import OrganizationFactory as Org

    def org(prefix: str, kind: str) -> Organization:
        made: Organization = Org(name=f"{prefix} {tag}", slug=f"{prefix}-{tag}", kind=kind)  # type: ignore[assignment]
        return made

    buyer = _role(f"b-{tag}", org("Buyer", OrgKind.BUYER))
    seller = _role(f"p-{tag}", org("Provider", OrgKind.PROVIDER))
    rival = _role(f"r-{tag}", org("Rival", OrgKind.PROVIDER))
    req: CapacityRequest = CapacityRequestFactory(buyer=buyer.org, sealed=False)  # type: ignore[assignment]
    bids: list[Bid] = []
    for role in (seller, rival):
        InvitationFactory(request=req, provider=role.org)
        bid: Bid = BidFactory(request=req, provider=role.org)  # type: ignore[assignment]
        bid_submit(bid=bid, user=role.user)
        bid.refresh_from_db()
        bids.append(bid)
    spec = two_node_spec()
    spec["required_evidence"] = ["step-times"]
    done = award(World(request=req, bid=bids[0], rival_bid=bids[1]), buyer, spec)
    return done.run, seller.user


def one_upload(run: BurnInRun, user: Any, data: bytes, name: str) -> float:
    start = time.perf_counter()
    with transaction.atomic():
        services.evidence_upload(
            run=run, user=user, upload=SimpleUploadedFile(name, data, "text/csv"), node=""
        )
    # The parse and re-check ran on commit, in-process; the run must now be current.
    run.refresh_from_db()
    elapsed = time.perf_counter() - start
    if not (run.checks_state == ChecksState.DONE and run.checked_version == run.evidence_version):
        raise SystemExit(f"checks not current after {name}: {run.checks_state}")
    return elapsed


def sequence(files: list[bytes], *, reparse: bool, tag: str) -> list[float]:
    run, user = new_run(tag)
    times = []
    for i, data in enumerate(files):
        if reparse:  # as before: no stored result is trusted, every file is parsed again
            Evidence.objects.filter(run=run).update(parsed_format="")
        times.append(one_upload(run, user, data, f"steps-{i + 1}.csv"))
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--uploads", type=int, default=5)
    ap.add_argument("--ranks", type=int, default=4096)
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=3, help="sequences per mode; medians shown")
    ap.add_argument("--profile", action="store_true", help="profile the last re-check")
    args = ap.parse_args()
    files = [step_csv(seed, args.ranks, args.steps) for seed in range(args.uploads)]
    size = statistics.mean(len(f) for f in files) / 1e6
    print(f"{args.uploads} step-time CSVs of {size:.1f} MB ({args.ranks} ranks × {args.steps})")
    runs: dict[bool, list[list[float]]] = {False: [], True: []}
    for i in range(args.repeat):  # alternate the modes so drift on a shared machine hits both
        for reparse in (False, True):
            runs[reparse].append(sequence(files, reparse=reparse, tag=f"{i}-{int(reparse)}"))
    now, before = (
        [statistics.median(col) for col in zip(*runs[m], strict=True)] for m in (False, True)
    )
    if args.profile:
        import cProfile
        import pstats

        run = BurnInRun.objects.order_by("-pk").first()
        assert run is not None
        # A new evidence version, without queueing (the profile runs the re-check itself).
        BurnInRun.objects.filter(pk=run.pk).update(evidence_version=F("evidence_version") + 1)
        cProfile.runctx("services.run_recheck(run_id=run.pk)", globals(), {"run": run}, "/tmp/rp")
        pstats.Stats("/tmp/rp").sort_stats("cumulative").print_stats(25)
    for label, times in (("parse once (now)", now), ("re-parse all (before)", before)):
        figures = " ".join(f"{t:.2f}" for t in times)
        print(f"{label:22s} median s to checks current, upload 1..{len(times)}: {figures}")
    last = f"upload {len(now)} / upload 1"
    print(f"{last}: now {now[-1] / now[0]:.2f}, before {before[-1] / before[0]:.2f}")


if __name__ == "__main__":
    main()
