"""A stored analysis, window and degradation as the pages show them."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from typing import Any

from django.core.paginator import Page, Paginator

from acceptance.selectors.fixtures import FAILURE_RECORD_LABELS
from engine import failures
from engine.failures.record import record_gaps
from incidents.models import (
    FailedRun,
    Incident,
)

TIMELINE_PAGE = 50


def failure_record_gaps(run: FailedRun) -> list[dict[str, str]]:
    """What the fixture's failure record asks a failed-run upload to hold and this one lacks
    (`key`, `label`, `detail`), once analysed; a gap never stops the analysis. Uses the run's
    prefetched files and its reservation's fixture version."""
    if not isinstance(run.analysis, dict):
        return []
    version = run.reservation.fixture_version
    record = (version.spec or {}).get("failure_record") if version is not None else None
    if not isinstance(record, dict):
        return []
    has_map = any(f.is_rank_map for f in run.files.all())
    return [
        {"key": gap.key, "label": FAILURE_RECORD_LABELS.get(gap.key, gap.key), "detail": gap.detail}
        for gap in record_gaps(record, run.analysis, rank_map=has_map)
    ]


def analysis_view(
    run: FailedRun, *, page: str | int | None, first: str = "ending"
) -> dict[str, Any]:
    """The stored analysis as the page shows it. `first`: "ever" puts a restarted job's first
    failure at the head, else the failure that ended the job heads."""
    doc = failures.view(run.analysis, first=first) if isinstance(run.analysis, dict) else {}
    groups = doc.get("secondaries") or []
    # Ranks and events per kind: a scheduler's lines often name no rank, and "0 ranks" alone
    # would read as nothing happened.
    ranks: Counter[str] = Counter()
    events: Counter[str] = Counter()
    for g in groups:
        ranks[g.get("kind")] += len(g.get("ranks") or [])
        events[g.get("kind")] += int(g.get("count") or 0)
    timeline: Page[Any] = Paginator(doc.get("timeline") or [], TIMELINE_PAGE).get_page(page)
    rows = [{**e, "time": utc_label(e.get("time"))} for e in timeline.object_list]
    timeline.object_list = rows
    head = doc.get("first_failure")
    attempts = [
        {**a, "time": utc_label((a.get("first_failure") or {}).get("time"))}
        for a in doc.get("attempts") or []
    ]
    return {
        "doc": doc,
        "first": {**head, "time": utc_label(head.get("time"))} if head else None,
        "attempts": attempts,
        "candidates": [
            {**c, "time": utc_label(c.get("time"))} for c in doc.get("candidates") or []
        ],
        "secondary_count": len(doc.get("secondary_ranks") or []),
        "by_kind": sorted(
            ((kind, n, events[kind]) for kind, n in ranks.items()),
            key=lambda row: (-row[1], -row[2], str(row[0])),
        ),
        "timeline": timeline,
    }


def utc_label(value: Any) -> str | None:
    """An ISO instant from the stored JSON as the pages show instants: '2024-05-01 12:00:00',
    with milliseconds only when the log had them ('… 12:00:00.100'); UTC, which the page says."""
    if not isinstance(value, str):
        return None
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        return value
    if when.tzinfo is not None:
        when = when.astimezone(UTC)
    text = f"{when:%Y-%m-%d %H:%M:%S}"
    return f"{text}.{when.microsecond // 1000:03d}" if when.microsecond else text


def window_view(incident: Incident) -> dict[str, Any]:
    """The incident window with its instants formatted like the rest of the page."""
    window = dict(incident.window or {})
    for key in ("last_healthy_at", "first_bad_at"):
        window[key] = utc_label(window.get(key))
    return window


def attachable_incidents(run: FailedRun) -> list[Incident]:
    """Open incidents of the run's reservation that have no failed-run analysis yet."""
    return list(
        Incident.objects.filter(
            reservation_id=run.reservation_id, failed_run__isnull=True, closed_at__isnull=True
        ).order_by("-opened_at", "-pk")
    )


def degraded_view(incident: Incident) -> dict[str, Any] | None:
    """What the S2 detector found, with its instants as the pages show them."""
    found = dict(incident.degraded or {})
    if not found:
        return None
    found["rank_map_origin"], found["rank_map_lines"] = degraded_rank_map(found)
    for key in ("window_start", "window_end", "slow_until"):
        found[key] = utc_label(found.get(key))
    return found


def _ranges(ranks: list[int]) -> str:
    """[0, 1, 2, 3, 7] → '0-3, 7'."""
    spans: list[list[int]] = []
    for rank in sorted(set(ranks)):
        if spans and spans[-1][1] + 1 == rank:
            spans[-1][1] = rank
        else:
            spans.append([rank, rank])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in spans)


def ranks_by_node(pairs: dict[int, str]) -> list[str]:
    """{0: 'a', 1: 'a', 2: 'b'} → ['a: ranks 0-1', 'b: ranks 2'], nodes by their lowest rank."""
    nodes: dict[str, list[int]] = {}
    for rank, node in pairs.items():
        nodes.setdefault(node, []).append(rank)
    ordered = sorted(nodes.items(), key=lambda kv: min(kv[1]))
    return [f"{node}: ranks {_ranges(ranks)}" for node, ranks in ordered]


def degraded_rank_map(found: dict[str, Any]) -> tuple[str, list[str]]:
    """Where an S2's rank map came from (the step-time file's rank and node columns, or the
    rank map uploaded beside it) and its lines, node by node; no lines when it has none."""
    pairs = {
        int(p[0]): str(p[1])
        for p in found.get("rank_map") or []
        if isinstance(p, list) and len(p) == 2 and isinstance(p[0], int) and p[1]
    }
    if not pairs:
        return "", []
    if found.get("rank_map_from") == "columns":
        origin = f"{found.get('file') or 'the step-time file'}'s rank and node columns"
    else:
        origin = found.get("rank_map_file") or "the rank map uploaded with the step times"
    return f"{origin} ({len(pairs)} ranks)", ranks_by_node(pairs)
