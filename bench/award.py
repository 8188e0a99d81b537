"""Time the award optimiser on 20 lots × 40 bids per lot (800 bid lines), seeded.

Run: .venv/bin/python bench/award.py [--lots 20] [--bids 40] [--seed 1] [--repeat 3]
Target: the scenario solved, with the cost of every rule, in under 10 s (one call of `solve`,
as the Celery task makes it). Prints each objective's best wall and CPU time of the repeats (the
CPU time is what the solve costs on a machine others share), the status, the gap and how many
rules were priced.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.award import AwardResult, Bundle, LotSpec, Offer, Scenario, solve

REGIONS = ("EU", "US", "APAC")


def make_lots(count: int, rng: random.Random) -> list[LotSpec]:
    """Pre-training lots indivisible, fine-tuning and inference lots divisible in blocks."""
    lots = []
    for index in range(count):
        divisible = rng.random() < 0.6
        nodes = rng.choice([8, 12, 16, 24, 32, 48]) if divisible else rng.choice([16, 32, 64])
        lots.append(
            LotSpec(
                key=f"lot-{index:02d}",
                gpus=nodes * 8,
                gpus_per_node=8,
                divisible=divisible,
                min_block_nodes=rng.choice([2, 4]) if divisible else 1,
                fabric_domain_required=not divisible or rng.random() < 0.3,
            )
        )
    return lots


def make_offers(lots: list[LotSpec], bids: int, rng: random.Random) -> list[Offer]:
    """`bids` lines per lot from 40 providers; a provider may bid a lot from two sites."""
    home = {f"prov-{i:02d}": rng.choice(REGIONS) for i in range(40)}
    offers = []
    for lot in lots:
        for index in range(bids):
            provider = rng.choice(sorted(home))
            site = rng.randrange(2)
            cover = lot.nodes if not lot.divisible else rng.randint(lot.min_block_nodes, lot.nodes)
            offers.append(
                Offer(
                    key=f"{lot.key}/{index:02d}",
                    provider=provider,
                    lot=lot.key,
                    max_nodes=cover if rng.random() < 0.8 else cover // 2,
                    price_per_gpu_hour=Decimal(f"{rng.uniform(1.6, 3.4):.2f}"),
                    hours=720,
                    useful_fraction=Decimal(f"{rng.uniform(0.80, 0.97):.3f}"),
                    region=home[provider],
                    fabric_domain=f"{provider}-{home[provider]}-{site}",
                )
            )
    return offers


def make_bundles(lots: list[LotSpec], offers: list[Offer], rng: random.Random) -> list[Bundle]:
    """All-or-nothing pairs, 2-6 % discounts on 2-3 lots, and capacity caps, on lots bid."""
    bid_lots: dict[str, list[str]] = {}
    for offer in offers:
        bid_lots.setdefault(offer.provider, []).append(offer.lot)
    bundles = []
    total = sum(lot.gpus for lot in lots)
    for provider, mine in sorted(bid_lots.items()):
        distinct = sorted(set(mine))
        roll = rng.random()
        if roll < 0.25 and len(distinct) >= 2:
            bundles.append(Bundle(provider, "all_or_nothing", tuple(rng.sample(distinct, 2))))
        elif roll < 0.65 and len(distinct) >= 2:
            lots_in = tuple(rng.sample(distinct, min(len(distinct), rng.choice([2, 3]))))
            pct = Decimal(rng.choice([2, 3, 4, 5, 6]))
            bundles.append(Bundle(provider, "discount", lots_in, discount_pct=pct))
        elif roll < 0.9:
            cap = int(total * rng.uniform(0.1, 0.3)) // 8 * 8
            bundles.append(Bundle(provider, "max_total", (), max_gpus=cap))
    return bundles


def scenario(objective: str) -> Scenario:
    return Scenario(
        objective=objective,  # type: ignore[arg-type]
        min_providers=4,
        max_providers=14,
        max_share_pct=Decimal(30),
        share_basis="gpus",
        min_share_pct={"prov-03": Decimal(3)},
        min_regions=2,
        excluded_providers=frozenset({"prov-07"}),
        one_fabric_domain_per_lot=True,
    )


def timed(args: argparse.Namespace, objective: str) -> tuple[float, float, AwardResult]:
    rng = random.Random(args.seed)
    lots = make_lots(args.lots, rng)
    offers = make_offers(lots, args.bids, rng)
    bundles = make_bundles(lots, offers, rng)
    best, cpu, result = float("inf"), float("inf"), None
    for _ in range(args.repeat):
        started, started_cpu = time.perf_counter(), time.process_time()
        result = solve(scenario(objective), lots, offers, bundles, time_limit_s=args.limit)
        best = min(best, time.perf_counter() - started)
        cpu = min(cpu, time.process_time() - started_cpu)
    assert result is not None
    return best, cpu, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lots", type=int, default=20)
    parser.add_argument("--bids", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--limit", type=float, default=60.0, help="solve()'s time limit, s")
    args = parser.parse_args()
    print(
        f"{args.lots} lots × {args.bids} bids per lot, seed {args.seed}, "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    )
    for objective in ("min_cost_for_required_useful", "max_useful_per_dollar"):
        wall, cpu, result = timed(args, objective)
        priced = sum(rule.cost_delta is not None for rule in result.rule_costs)
        figures = result.figures
        print(
            f"{objective}: {wall:.2f} s wall, {cpu:.2f} s CPU (best of {args.repeat}), "
            f"{result.status}, "
            f"gap {result.mip_gap}, {len(result.lines)} lines, "
            f"cost {figures.cost if figures else '-'}, "
            f"rules priced {priced}/{len(result.rule_costs)}, "
            f"Dinkelbach rounds {result.iterations}"
        )


if __name__ == "__main__":
    main()
