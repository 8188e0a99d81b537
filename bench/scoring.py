"""Time score_bids on 1,000 varied bids with the full 2,000-draw sensitivity analysis.

Run: .venv/bin/python bench/scoring.py [--bids 1000] [--draws 2000] [--repeat 3]
Target: under 2 s on one core. Prints the best of the repeats.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.scoring import BidOffer, ProviderHistory, TimingRecord, Weights, score_bids
from engine.scoring.demo import demo_bids, demo_request


def make_bids(count: int, seed: int = 1) -> list[BidOffer]:
    rng = random.Random(seed)
    templates = demo_bids()
    out = []
    for i in range(count):
        base = templates[i % len(templates)]
        out.append(
            replace(
                base,
                label=f"bid-{i:04d}",
                region=rng.choice(["EU", "EU", "EU", "US"]),
                price_per_gpu_hour=Decimal(f"{rng.uniform(1.6, 3.4):.2f}"),
                egress_usd=Decimal(rng.randrange(0, 5_000)),
                nics_per_node=rng.choice([4, 8]),
                oversubscription_ratio=rng.choice([1.0, 1.0, 1.5, 2.0]),
                rail_optimised=rng.random() < 0.7,
                uptime_pct=round(rng.uniform(99.0, 99.99), 2),
                node_replacement_hours=rng.choice([2.0, 4.0, 8.0, 24.0, 48.0, 72.0]),
                spares_count=rng.choice([0, 1, 2]),
                spares_location=rng.choice(["same_fabric_domain", "same_site", "remote"]),
                coverage=rng.choice(["24x7", "extended", "business_hours"]),
                health_checks_auto_drain=rng.random() < 0.5,
                declared_node_mtbf_hours=rng.choice([None, 4_000.0, 6_000.0, 8_000.0, 12_000.0]),
                site_readiness=rng.choice(["live", "live", "racked", "under_construction"]),
                evidence_shared=rng.random() < 0.6,
                history=_history(rng) if rng.random() < 0.3 else None,
            )
        )
    return out


def _history(rng: random.Random) -> ProviderHistory:
    """A track record, above or below the minimum, so both paths of the blend are timed."""
    closed = rng.randrange(0, 12)
    return ProviderHistory(
        reservations=rng.randrange(1, 6),
        node_hours=rng.uniform(2_000.0, 80_000.0),
        incidents=closed + rng.randrange(0, 3),
        closed_incidents=closed,
        detection=TimingRecord(rng.uniform(300, 3_600), closed),
        repair=TimingRecord(rng.uniform(1_800, 86_400), closed),
        revalidation=TimingRecord(rng.uniform(900, 7_200), closed),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bids", type=int, default=1_000)
    parser.add_argument("--draws", type=int, default=2_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--interval-minutes", type=float, default=None, help="the buyer's checkpoint interval"
    )
    args = parser.parse_args()

    request = demo_request()
    if args.interval_minutes is not None:
        request = replace(request, checkpoint_interval_seconds=args.interval_minutes * 60)
    bids, weights = make_bids(args.bids), Weights()
    times = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        result = score_bids(request, bids, weights, seed=0, draws=args.draws)
        times.append(time.perf_counter() - start)
    sens = result.sensitivity
    print(
        f"{args.bids} bids ({len(result.qualified)} qualified), {args.draws} draws: "
        f"best {min(times):.3f} s of {args.repeat} (all: {', '.join(f'{t:.3f}' for t in times)}); "
        f"winner {sens.winner} {sens.verdict} ({sens.winner_share:.1%} of draws)"
    )


if __name__ == "__main__":
    main()
