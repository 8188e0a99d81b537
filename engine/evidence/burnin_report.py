"""Plain data out of parsed evidence: chart series and the hand-over baseline snapshot.

Works on the stored parsed JSON (`parsers.to_json` output), so it needs no parser objects and no
database; each entry of `files` is {"id", "name", "sha256", "node", "kind", "parsed"}.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations
from typing import Any

from engine.domain import PALETTE, series_colours
from engine.evidence.checks import load_spec
from engine.evidence.large_message import (
    large_message_bytes,
    stored_lowest_large_busbw,
    stored_row_busbw,
)
from engine.evidence.runtime_versions import node_versions
from engine.formatting import bandwidth, data_size

WHOLE = "whole allocation"
File = Mapping[str, Any]


def _runs(parsed: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [parsed, *(parsed.get("runs") or [])]


def _points(run: Mapping[str, Any]) -> list[tuple[int, float]]:
    """(size, busbw) of every row with a figure, for charts and the baseline's curve."""
    return [(row["size"], v) for row in run["rows"] if (v := stored_row_busbw(row)) is not None]


def _nccl_runs(files: Iterable[File]) -> list[tuple[File, Mapping[str, Any]]]:
    return [
        (f, run)
        for f in files
        if f.get("kind") == "nccl-tests" and f.get("parsed")
        for run in _runs(f["parsed"])
        if run.get("rows")
    ]


def _command(run: Mapping[str, Any]) -> str:
    parts = [f"{run.get('collective') or 'unknown'}_perf"]
    for flag, key in (
        ("-b", "min_bytes"),
        ("-e", "max_bytes"),
        ("-f", "step_factor"),
        ("-n", "iters"),
        ("-w", "warmup_iters"),
        ("-c", "validation"),
        ("-d", "datatype"),
    ):
        if run.get(key) is not None:
            parts.append(f"{flag} {run[key]}")
    return " ".join(parts)


def busbw_charts(files: Sequence[File], spec: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One chart per collective: busbw against message size per run, with the agreed floor."""
    loaded = load_spec(spec)
    large = large_message_bytes(loaded.thresholds)
    charts: dict[str, dict[str, Any]] = {}
    for f, run in _nccl_runs(files):
        coll = run.get("collective") or "unknown"
        chart = charts.setdefault(
            coll,
            {
                "collective": coll,
                "threshold": loaded.busbw_threshold(coll),
                # Pre-formatted, so the browser prints sizes and rates as pages and PDFs do.
                "threshold_text": bandwidth(loaded.busbw_threshold(coll)),
                "large_bytes": large,
                "large_text": data_size(large),
                "series": [],
            },
        )
        points = _points(run)
        chart["series"].append(
            {
                "name": f"{f.get('node') or WHOLE} · {f.get('name')}",
                "x": [p[0] for p in points],
                "x_text": [data_size(p[0]) for p in points],
                "y": [p[1] for p in points],
            }
        )
    return sorted(charts.values(), key=lambda c: c["collective"])


def _step_results(files: Iterable[File]) -> list[Mapping[str, Any]]:
    return [f["parsed"] for f in files if f.get("kind") == "step-times" and f.get("parsed")]


def node_comparison(files: Sequence[File], spec: Mapping[str, Any]) -> dict[str, Any]:
    """Per node: large-message busbw of its single-node runs, and its median step time."""
    large = large_message_bytes(load_spec(spec).thresholds)
    busbw: dict[str, dict[str, float]] = {}
    for f, run in _nccl_runs(files):
        node = f.get("node") or ""
        value = stored_lowest_large_busbw(run, large_bytes=large)
        if node and "+" not in node and value is not None:
            busbw.setdefault(run.get("collective") or "unknown", {})[node] = value
    steps: dict[str, list[float]] = {}
    for parsed in _step_results(files):
        for rank in parsed.get("per_rank") or []:
            steps.setdefault(rank.get("node") or "?", []).append(float(rank["median"]))
    nodes = sorted({n for per in busbw.values() for n in per} | set(steps))
    colours = series_colours(names=sorted(busbw))
    return {
        "nodes": nodes,
        "busbw": [
            {"name": coll, "colour": colours[coll], "y": [per.get(n) for n in nodes]}
            for coll, per in sorted(busbw.items())
        ],
        "step_median": [
            round(statistics.median(steps[n]), 6) if n in steps else None for n in nodes
        ],
    }


SLOWEST_SHOWN = 10


def step_distribution(files: Sequence[File], spec: Mapping[str, Any]) -> dict[str, Any] | None:
    results = _step_results(files)
    if not results:
        return None
    parsed = results[-1]
    ranks = sorted(parsed.get("per_rank") or [], key=lambda r: r["rank"])
    tolerance = float(load_spec(spec).thresholds.get("step_time_tolerance_pct") or 5.0)
    return {
        "ranks": [r["rank"] for r in ranks],
        "nodes": [r.get("node") for r in ranks],
        "median": [r["median"] for r in ranks],
        "min": [r["min"] for r in ranks],
        "max": [r["max"] for r in ranks],
        "p95": [r["p95"] for r in ranks],
        "run_median": parsed.get("run_median"),
        "tolerance_pct": tolerance,
        # The chart's text alternative: the ranks a reader looks for, not thousands of rows.
        "slowest": [
            {k: r.get(k) for k in ("rank", "node", "median", "p95", "max")}
            for r in sorted(ranks, key=lambda r: (-r["median"], r["rank"]))[:SLOWEST_SHOWN]
        ],
    }


def subset_matrices(files: Sequence[File], spec: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Node x node: the lowest large-message busbw of the subset runs holding both nodes."""
    loaded = load_spec(spec)
    large = large_message_bytes(loaded.thresholds)
    cells: dict[str, dict[tuple[str, str], float]] = {}
    for f, run in _nccl_runs(files):
        nodes = sorted(n for n in (f.get("node") or "").split("+") if n)
        value = stored_lowest_large_busbw(run, large_bytes=large)
        if len(nodes) < 2 or value is None:
            continue
        per = cells.setdefault(run.get("collective") or "unknown", {})
        for a, b in combinations(nodes, 2):
            for key in ((a, b), (b, a)):
                per[key] = min(per.get(key, value), value)
    out = []
    for coll, per in sorted(cells.items()):
        names = sorted({n for pair in per for n in pair})
        out.append(
            {
                "collective": coll,
                "nodes": names,
                "z": [[per.get((a, b)) for b in names] for a in names],
                "threshold": loaded.busbw_threshold(coll),
            }
        )
    return out


def charts(files: Sequence[File], spec: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "busbw": busbw_charts(files, spec),
        "nodes": node_comparison(files, spec),
        "steps": step_distribution(files, spec),
        "subsets": subset_matrices(files, spec),
        "palette": list(PALETTE),
    }


def _node_summary(files: Sequence[File]) -> dict[str, dict[str, Any]]:
    nodes: dict[str, dict[str, Any]] = {}
    for f in files:
        parsed, kind = f.get("parsed") or {}, f.get("kind")
        entry = nodes.setdefault(f.get("node") or WHOLE, {})
        if kind == "nvidia-smi-query":
            gpus = parsed.get("gpus") or []
            entry["gpus"] = len(gpus)
            entry["gpu_models"] = sorted({str(g.get("name")) for g in gpus if g.get("name")})
            entry["driver_versions"] = sorted(
                {str(g["driver_version"]) for g in gpus if g.get("driver_version")}
            )
            ecc = [g.get("ecc.errors.uncorrected.volatile.total") for g in gpus]
            entry["ecc_uncorrected"] = sum(v for v in ecc if isinstance(v, int | float))
        elif kind == "ibstat":
            ports = parsed.get("ports") or []
            active = [p for p in ports if p.get("state") == "Active"]
            entry["ib_ports"] = len(ports)
            entry["ib_ports_active"] = len(active)
            entry["ib_rates_gbps"] = sorted({p.get("rate") for p in active if p.get("rate")})
        elif kind == "dcgmi-diag":
            counts: dict[str, int] = {}
            for test in parsed.get("tests") or []:
                counts[test.get("result", "?")] = counts.get(test.get("result", "?"), 0) + 1
            entry["dcgmi"] = counts
        elif kind == "nvidia-smi-topo":
            links = {
                v
                for row in (parsed.get("matrix") or {}).values()
                for v in row.values()
                if isinstance(v, str) and v.startswith("NV")
            }
            entry["nvlink_classes"] = sorted(links)
    return {k: v for k, v in sorted(nodes.items()) if v}


def baseline_snapshot(
    files: Sequence[File], spec: Mapping[str, Any], *, header: Mapping[str, Any]
) -> dict[str, Any]:
    """What the accepted run measured, kept as the reference for later incidents."""
    large = large_message_bytes(load_spec(spec).thresholds)
    nccl = []
    for f, run in _nccl_runs(files):
        nccl.append(
            {
                "collective": run.get("collective"),
                "node": f.get("node") or WHOLE,
                "evidence_id": f.get("id"),
                "file": f.get("name"),
                "sha256": f.get("sha256"),
                "command": _command(run),
                "ranks": run.get("ranks"),
                "hosts": list(run.get("nodes") or []),  # the node set recovery runs must match
                "nccl_version": run.get("nccl_version"),
                "nccl_tests_version": run.get("nccl_tests_version"),
                "large_message_busbw_min_gbps": stored_lowest_large_busbw(run, large_bytes=large),
                "avg_busbw_gbps": run.get("avg_busbw"),
                "busbw_by_size": [list(p) for p in _points(run)],
            }
        )
    steps = _step_results(files)
    per_node = node_versions(files=files)
    return {
        **header,
        "large_message_bytes": large,
        "nccl": nccl,
        "versions": {
            "nccl": sorted({r["nccl_version"] for r in nccl if r["nccl_version"]}),
            "driver": sorted(
                {v for n in _node_summary(files).values() for v in n.get("driver_versions", [])}
            ),
            # The CUDA runtime the burn-in ran, which recovery runs are held to per node.
            "cuda": sorted({v for n in per_node.values() for v in n.get("cuda", [])}),
        },
        "node_versions": per_node,
        "nodes": _node_summary(files),
        "step_times": {
            "run_median_s": steps[-1].get("run_median") if steps else None,
            "ranks": steps[-1].get("ranks") if steps else None,
        },
        "evidence": [
            {
                "id": f.get("id"),
                "file": f.get("name"),
                "sha256": f.get("sha256"),
                "kind": f.get("kind"),
                "node": f.get("node") or WHOLE,
            }
            for f in files
        ],
    }


def contracted_baseline_snapshot(
    spec: Mapping[str, Any], *, header: Mapping[str, Any]
) -> dict[str, Any]:
    """The contracted thresholds as the recovery reference: what an overridden run is measured
    against unless the buyer chose that run. Same shape as `baseline_snapshot`, nothing measured:
    each collective's agreed busbw floor stands where a run's lowest large-message figure would."""
    loaded = load_spec(spec)
    large = large_message_bytes(loaded.thresholds)
    floors = loaded.thresholds.get("busbw_gbps") or {}
    return {
        **header,
        "source": "contracted",
        "large_message_bytes": large,
        "nccl": [
            {
                "collective": collective,
                "node": WHOLE,
                "large_message_busbw_min_gbps": float(floor),
                "contracted": True,
            }
            for collective, floor in sorted(floors.items())
            if isinstance(floor, int | float)
        ],
        "versions": {
            "nccl": [loaded.nccl_version] if loaded.nccl_version else [],
            "driver": [loaded.driver_version] if loaded.driver_version else [],
            "cuda": [loaded.cuda_version] if loaded.cuda_version else [],
        },
        "node_versions": {},
        "nodes": {},
        "step_times": {"run_median_s": None, "ranks": None},
        "evidence": [],
    }
