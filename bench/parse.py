"""Parser throughput against a minimal typed reader and `grep -c` on the same bytes.

Run: .venv/bin/python bench/parse.py [--mb 50] [--ranks 4096] [--steps 50] [--repeat 3]

Synthesises ~50 MB of nccl-tests logs (16-rank all_reduce sweeps with NCCL INFO chatter, as a
real burn-in log has) and a 4,096-rank step-time CSV in a temporary directory, then times our
parsers, a minimal reader that builds the same typed nccl-tests rows and nothing else (no
headers, labels, checks or error lines), and `grep -c` over the same files. Times are CPU
seconds of this process, best of --repeat, alternating the two readers, so a shared machine's
load moves both alike. The last line is the target's: ours within 1.5x of the minimal reader.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.evidence.parsers import nccl_tests, step_times
from engine.evidence.parsers.nccl_model import NcclBandwidth, NcclRow


def minimal_rows(data: bytes) -> list[NcclRow]:
    """The floor for typed rows in Python: split each line, keep the 13-column ones."""
    rows = []
    for lineno, line in enumerate(data.decode().split("\n"), 1):
        t = line.split()
        if len(t) == 13 and t[0].isdigit():
            rows.append(
                NcclRow(
                    size=int(t[0]),
                    count=int(t[1]),
                    type=t[2],
                    redop=t[3],
                    root=int(t[4]),
                    out_of_place=NcclBandwidth(float(t[5]), float(t[6]), float(t[7]), int(t[8])),
                    in_place=NcclBandwidth(float(t[9]), float(t[10]), float(t[11]), int(t[12])),
                    line=lineno,
                )
            )
    return rows


def nccl_log(rng: random.Random, hosts: int = 2, gpn: int = 8, noise: int = 200) -> str:
    lines = [
        "# nccl-tests version 2.17.4 nccl-headers=22703 nccl-library=22703",
        "# Collective test starting: all_reduce_perf",
        "# nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 "
        "iters: 20 agg iters: 1 validation: 1 graph: 0 unalign: 0",
        "#",
        "# Using devices",
    ]
    for rank in range(hosts * gpn):
        lines.append(
            f"#  Rank {rank:2d} Group  0 Pid {5000 + rank:6d} on bench-{rank // gpn:03d} "
            f"device {rank % gpn:2d} [0000:{16 + rank % gpn:02x}:00] NVIDIA H200"
        )
    for i in range(noise):
        lines.append(
            f"bench-000:5000:{5100 + i} [0] NCCL INFO Channel {i % 32:02d}/0 : 0[0] -> 1[1] "
            "via P2P/CUMEM/read"
        )
    lines.append("NCCL version 2.27.3+cuda12.8")
    lines.append(
        "#       size         count      type   redop    root     time   algbw   busbw #wrong"
        "     time   algbw   busbw #wrong"
    )
    size = 8
    while size <= 8589934592:
        bus = 460.0 * size / (size + (1 << 26)) * rng.uniform(0.98, 1.02)
        lines.append(
            f"{size:12d}  {size // 4:12d}     float     sum      -1  {100.0:7.1f}  "
            f"{bus / 1.875:6.2f}  {bus:6.2f}       0  {100.0:7.1f}  {bus / 1.875:6.2f}  "
            f"{bus:6.2f}       0"
        )
        size *= 2
    lines += ["# Out of bounds values : 0 OK", "# Avg bus bandwidth    : 150.2 ", "#"]
    return "\n".join(lines) + "\n"


def write_corpus(root: Path, target_mb: float, ranks: int, steps: int) -> tuple[list[Path], Path]:
    rng = random.Random(42)
    files: list[Path] = []
    total = 0
    i = 0
    while total < target_mb * 1e6:
        path = root / f"nccl_{i:05d}.log"
        text = nccl_log(rng)
        path.write_text(text)
        files.append(path)
        total += len(text)
        i += 1
    csv = root / "steps.csv"
    with csv.open("w") as fh:
        fh.write("rank,node,step,seconds,timestamp\n")
        for step in range(steps):
            for rank in range(ranks):
                fh.write(
                    f"{rank},node-{rank // 8:04d},{step},{1.0 + rng.random() * 0.02:.5f},"
                    f"2026-11-04T10:{step % 60:02d}:00Z\n"
                )
    return files, csv


def timed(fn: object) -> float:
    start = time.perf_counter()
    fn()  # type: ignore[operator]
    return time.perf_counter() - start


def cpu_timed(fn: Callable[[], object]) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--mb", type=float, default=50.0, help="size of the nccl-tests corpus")
    ap.add_argument("--ranks", type=int, default=4096)
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=3, help="best of this many runs")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="clusterbid-bench-") as tmp:
        root = Path(tmp)
        files, csv = write_corpus(root, args.mb, args.ranks, args.steps)
        nccl_bytes = sum(p.stat().st_size for p in files)
        csv_bytes = csv.stat().st_size

        blobs = [p.read_bytes() for p in files]

        def parse_all() -> None:
            for p in files:
                nccl_tests.parse(p.read_bytes())

        def parse_blobs() -> None:
            for blob in blobs:
                nccl_tests.parse(blob)

        def minimal_blobs() -> None:
            for blob in blobs:
                minimal_rows(blob)

        def grep_all() -> None:
            subprocess.run(
                ["grep", "-c", "-h", "float", *map(str, files)],
                check=True,
                stdout=subprocess.DEVNULL,
            )

        rows: list[tuple[str, int, float, float]] = []
        parse_s = timed(parse_all)
        grep_s = timed(grep_all)
        rows.append(("nccl-tests", nccl_bytes, parse_s, grep_s))
        steps_s = timed(lambda: step_times.parse(csv.read_bytes()))
        grep_csv_s = timed(
            lambda: subprocess.run(
                ["grep", "-c", ",", str(csv)], check=True, stdout=subprocess.DEVNULL
            )
        )
        rows.append((f"step-times ({args.ranks} ranks)", csv_bytes, steps_s, grep_csv_s))
        print(f"{'corpus':28s} {'MB':>7s} {'parser MB/s':>12s} {'grep -c MB/s':>13s} {'ratio':>7s}")
        for name, size, ours, grep in rows:
            mb = size / 1e6
            print(
                f"{name:28s} {mb:7.1f} {mb / ours:12.1f} {mb / grep:13.1f} "
                f"{(mb / grep) / (mb / ours):6.1f}x"
            )
        print(f"({len(files)} nccl-tests logs; parser {parse_s:.2f} s, step-times {steps_s:.2f} s)")
        ours_cpu, minimal_cpu = [], []
        for _ in range(args.repeat):
            minimal_cpu.append(cpu_timed(minimal_blobs))
            ours_cpu.append(cpu_timed(parse_blobs))
        mb = nccl_bytes / 1e6
        ours_mbs, minimal_mbs = mb / min(ours_cpu), mb / min(minimal_cpu)
        print(
            f"nccl-tests in memory, CPU time, best of {args.repeat}: parser {ours_mbs:.1f} MB/s, "
            f"minimal typed reader {minimal_mbs:.1f} MB/s, "
            f"parser slower by {minimal_mbs / ours_mbs:.2f}x (target: >= 60 MB/s, <= 1.5x)"
        )


if __name__ == "__main__":
    main()
