"""Time an award scenario of 20 lots × 40 bids per lot solved by a real Celery worker.

Run: .venv/bin/python bench/award_task.py [--lots 20] [--bids 40] [--seed 1] [--repeat 2]
     (needs Redis: CELERY_BROKER_URL, default redis://127.0.0.1:6379/0)

What the buyer waits for after pressing "Solve": a throwaway SQLite database gets a request with
`--lots` lots and `--bids` providers, each bidding every lot (so `--bids` offers per lot) with
the bundle conditions bench/award.py draws; the scenario is defined through `scenario_create`,
which queues the solve on commit; a Celery worker (solo pool, in a thread of this process, on
a queue of its own) reads the bids from the database, solves with the cost of every rule and
stores the answer. Each figure is the wall time from the definition's commit to the stored
answer, and the process's CPU time in it. Target: under 10 s.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
import uuid
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sandbox import django_sandbox

BROKER = os.environ.get("CELERY_BROKER_URL") or "redis://127.0.0.1:6379/0"
django_sandbox(prefix="cb-bench-award-task-", broker=BROKER)

import logging  # noqa: E402

from award import make_bundles, make_lots  # noqa: E402
from celery.contrib.testing.worker import start_worker  # noqa: E402
from django.conf import settings  # noqa: E402
from django.db import transaction  # noqa: E402
from django.utils import timezone  # noqa: E402

from config.celery import app as celery_app  # noqa: E402
from config.celery import heavy_queue  # noqa: E402
from engine.award import Bundle, LotSpec  # noqa: E402

logging.disable(logging.CRITICAL)
settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
REGIONS = ("eu", "us-east", "apac")


def build_request(lots: list[LotSpec], providers: int, rng: random.Random) -> tuple[Any, Any]:
    """The request, its lots and one submitted bid per provider covering every lot."""
    from bids.models import Invitation
    from bids.services import bid_save_draft, bid_submit
    from orgs.choices import OrgKind
    from tests.conftest import _role
    from tests.factories import (
        BidFactory,
        CapacityRequestFactory,
        LotFactory,
        OrganizationFactory,
    )

    buyer_org: Any = OrganizationFactory(name="Bench Buyer", kind=OrgKind.BUYER)
    buyer = _role("bench-buyer", buyer_org)
    start = timezone.localdate() + timedelta(days=60)
    req: Any = CapacityRequestFactory(
        buyer=buyer.org,
        sealed=False,
        acceptable_regions=list(REGIONS),
        reservation_start=start,
        reservation_end=start + timedelta(days=29),
        nodes=sum(lot.nodes for lot in lots),
        gpus_per_node=8,
    )
    for number, lot in enumerate(lots, start=1):
        LotFactory(
            request=req,
            number=number,
            name=f"Lot {number}",
            nodes=lot.nodes,
            gpus_per_node=8,
            divisible=lot.divisible,
            min_block_nodes=lot.min_block_nodes if lot.divisible else None,
        )
    number_of = {lot.key: n for n, lot in enumerate(lots, start=1)}
    names = [f"prov-{i:02d}" for i in range(providers)]
    # Bundles as bench/award.py draws them, over every lot (each provider bids them all).
    stand_in = [_StandIn(provider=name, lot=lot.key) for name in names for lot in lots]
    bundles: dict[str, list[Bundle]] = {}
    for bundle in make_bundles(lots, stand_in, rng):  # type: ignore[arg-type]
        bundles.setdefault(bundle.provider, []).append(bundle)
    for name in names:
        org: Any = OrganizationFactory(name=name, kind=OrgKind.PROVIDER)
        role = _role(f"{name}-eng", org)
        Invitation.objects.get_or_create(request=req, provider=org)
        bid: Any = BidFactory(request=req, provider=org, region=rng.choice(REGIONS))
        offers = [
            {
                "lot": number_of[lot.key],
                "price_per_gpu_hour": f"{rng.uniform(1.6, 3.4):.2f}",
                "nodes": lot.nodes
                if not lot.divisible or rng.random() < 0.5
                else rng.randint(lot.min_block_nodes, lot.nodes),
            }
            for lot in lots
        ]
        conditions = [_condition(b, number_of) for b in bundles.get(name, [])]
        bid_save_draft(bid=bid, user=role.user, data={"lot_offers": offers, "bundles": conditions})
        bid_submit(bid=bid, user=role.user)
    return req, buyer


class _StandIn:
    """What make_bundles reads of an offer."""

    def __init__(self, *, provider: str, lot: str) -> None:
        self.provider, self.lot = provider, lot


def _condition(bundle: Bundle, number_of: dict[str, int]) -> dict[str, object]:
    lots = [number_of[key] for key in bundle.lots]
    if bundle.kind == "max_total":
        return {"kind": "max_total", "max_gpus": bundle.max_gpus}
    if bundle.kind == "discount":
        return {"kind": "discount", "lots": lots, "discount_pct": str(bundle.discount_pct)}
    return {"kind": "all_or_nothing", "lots": lots}


def rules(objective: str, names: list[str]) -> dict[str, object]:
    """bench/award.py's scenario: every kind of rule at once."""
    from orgs.models import Organization

    ids = dict(Organization.objects.filter(name__in=names).values_list("name", "pk"))
    return {
        "name": f"Bench {objective}",
        "objective": objective,
        "min_providers": 4,
        "max_providers": 14,
        "max_share_pct": Decimal(30),
        "share_basis": "gpus",
        "min_share": {str(ids["prov-03"]): "3"},
        "min_regions": 2,
        "excluded_providers": [ids["prov-07"]],
        "one_fabric_domain_per_lot": True,
    }


def solve_once(req: Any, buyer: Any, data: dict[str, object]) -> tuple[float, float, Any]:
    from evaluation.scenario_models import AwardScenario
    from evaluation.scenario_services import scenario_create

    with transaction.atomic():
        scenario = scenario_create(capacity_request=req, user=buyer.user, data=data)
        started, cpu_before = time.perf_counter(), time.process_time()
    while True:
        scenario = AwardScenario.objects.get(pk=scenario.pk)
        if scenario.finished:
            break
        time.sleep(0.02)
    wall = time.perf_counter() - started
    # The process's CPU: the worker thread's solve and this thread's polling (a few ms).
    return wall, time.process_time() - cpu_before, scenario


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lots", type=int, default=20)
    parser.add_argument("--bids", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    lots = make_lots(args.lots, rng)
    made = time.perf_counter()
    req, buyer = build_request(lots, args.bids, rng)
    print(
        f"{args.lots} lots × {args.bids} bids per lot ({args.lots * args.bids} offer lines), "
        f"seed {args.seed}, built in {time.perf_counter() - made:.1f} s; "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    )
    queue = f"bench-{uuid.uuid4().hex[:8]}"
    celery_app.conf.task_always_eager = False
    celery_app.conf.task_default_queue = queue
    names = [f"prov-{i:02d}" for i in range(args.bids)]
    with start_worker(
        celery_app,
        pool="solo",
        perform_ping_check=False,
        queues=[queue, heavy_queue(queue)],
        loglevel="WARNING",
    ):
        for objective in ("min_cost_for_required_useful", "max_useful_per_dollar"):
            best_wall, best_cpu, scenario = float("inf"), float("inf"), None
            for _ in range(args.repeat):
                wall, cpu, scenario = solve_once(req, buyer, rules(objective, names))
                best_wall, best_cpu = min(best_wall, wall), min(best_cpu, cpu)
            assert scenario is not None
            result = scenario.result or {}
            priced = sum(r.get("cost_delta") is not None for r in result.get("rule_costs", []))
            print(
                f"{objective}: {best_wall:.2f} s wall, {best_cpu:.2f} s CPU "
                f"(best of {args.repeat}), {scenario.status} "
                f"{result.get('status', scenario.error)}, gap {result.get('mip_gap')}, "
                f"{len(result.get('lines', []))} lines, "
                f"rules priced {priced}/{len(result.get('rule_costs', []))}"
            )


if __name__ == "__main__":
    main()
