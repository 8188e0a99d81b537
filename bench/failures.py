"""Failed-run analysis throughput, and Flight Recorder analysis against PyTorch's fr_trace.

Run: .venv/bin/python bench/failures.py [--mb 100] [--ranks 512 4096 16384]
     [--fr-ranks 1024 4096 16384]
     [--no-fr-trace] [--fr-trace-timeout 600]

Logs: synthesises a torchrun + Slurm job of N ranks whose rank 137 (or N/4+9) hits an Xid 79
while every other rank times out, padded with training chatter to about --mb megabytes, writes it
to a temporary folder, and times `read_paths` + `analyse` in a fresh process (seconds, MB/s,
peak RSS). Flight Recorder: one pickle dump of 200 entries per rank with one rank that never
entered the last collective; times our analysis and, when torch is installed, `python -m
torch.distributed.flight_recorder.fr_trace DIR --prefix nccl_trace_rank_` on the same files.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.failures.model import SourceFile
from engine.failures.synthetic import Scenario, cascade, iter_flight_recorder

_LINE_BYTES = 112  # one chatter line, measured


def _write(files: Iterable[SourceFile], root: Path) -> int:
    total = 0
    for f in files:
        path = root / f.name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(f.data)
        total += len(f.data)
    return total


def _child(root: str, year: int | None) -> None:
    """Runs in a fresh interpreter so the RSS is the analysis's own."""
    from engine.failures import analyse, iter_paths

    start, cpu = time.perf_counter(), time.process_time()
    result = analyse(iter_paths([root]), year=year)  # streamed: one file in memory at a time
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "cpu_s": cpu, "peak_mb": peak_mb,
                      "rank": result.initiating_rank, "summary": result.summary()}))  # fmt: skip


def _measure(root: Path, year: int | None) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--child", str(root)]
    if year:
        cmd += ["--year", str(year)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def _fr_trace(root: Path, timeout: int) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "torch.distributed.flight_recorder.fr_trace", str(root),
           "--prefix", "nccl_trace_rank_"]  # fmt: skip
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return {"error": f">{timeout}s"}
    seconds = time.perf_counter() - start
    # Children run one at a time, smallest first, so the running maximum is this run's peak.
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    m = re.search(r"missing ranks: \{([\d, ]+)\}", out)
    culprit = [int(x) for x in m.group(1).split(",")] if m else None
    tail = out.strip().splitlines()[-3:] if culprit is None else []
    return {"seconds": seconds, "peak_mb": peak_mb, "culprit": culprit, "tail": tail}


def bench_logs(ranks: list[int], mb: float) -> None:
    print(f"{'ranks':>6} {'MB':>7} {'seconds':>8} {'MB/s':>7} {'peak MB':>8}  verdict")
    for n in ranks:
        culprit = 137 if n > 137 else n // 4 + 1
        lines = max(0, int(mb * 1e6 / (n * _LINE_BYTES)))
        scenario = Scenario(ranks=n, culprit=culprit, noise_lines_per_rank=lines)
        with tempfile.TemporaryDirectory() as tmp:
            size = _write(cascade(scenario), Path(tmp))
            r = _measure(Path(tmp), 2024)
        secs = float(r["seconds"])
        rate = size / 1e6 / secs
        print(f"{n:>6} {size / 1e6:>7.1f} {secs:>8.2f} {rate:>7.1f} {r['peak_mb']:>8.0f}  "
              f"{r['summary']}")  # fmt: skip
        assert r["rank"] == culprit, r


def bench_fr(ranks: list[int], run_fr_trace: bool, timeout: int) -> None:
    print(f"\n{'ranks':>6} {'ours s':>7} {'cpu s':>6} {'ours MB':>8} {'culprit':>7} "
          f"{'fr_trace s':>10} {'fr MB':>7} {'fr culprit':>10} {'ratio':>6}")  # fmt: skip
    for n in ranks:
        culprit = n // 3
        with tempfile.TemporaryDirectory() as tmp:
            _write(iter_flight_recorder(ranks=n, entries=200, culprit=culprit), Path(tmp))
            ours = _measure(Path(tmp), None)
            theirs: dict[str, Any] = {"error": "skipped"}
            if run_fr_trace:
                theirs = _fr_trace(Path(tmp) / "fr", timeout)
        o_s = float(ours["seconds"])
        t_s = theirs.get("seconds")
        ratio = f"{t_s / o_s:6.1f}" if t_s else "   n/a"
        t_txt = f"{t_s:10.2f}" if t_s else f"{theirs['error']:>10}"
        t_mb = f"{theirs['peak_mb']:.0f}" if t_s else "-"
        print(f"{n:>6} {o_s:>7.2f} {ours['cpu_s']:>6.2f} {ours['peak_mb']:>8.0f} "
              f"{ours['rank']!s:>7} {t_txt} {t_mb:>7} {theirs.get('culprit')!s:>10} "
              f"{ratio}")  # fmt: skip
        if theirs.get("tail"):
            print("   fr_trace:", theirs["tail"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=float, default=100.0)
    parser.add_argument("--ranks", type=int, nargs="*", default=[512, 4096, 16384])
    parser.add_argument("--fr-ranks", type=int, nargs="*", default=[1024, 4096, 16384])
    parser.add_argument("--no-fr-trace", action="store_true")
    parser.add_argument("--fr-trace-timeout", type=int, default=600)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--year", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.child, args.year)
        return
    os.environ.setdefault("PYTHONHASHSEED", "0")
    bench_logs(args.ranks, args.mb)
    if args.fr_ranks:
        bench_fr(args.fr_ranks, not args.no_fr_trace, args.fr_trace_timeout)


if __name__ == "__main__":
    main()
