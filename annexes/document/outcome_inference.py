"""The outcome report's inference part: for each served-responses file read in the period, the
offer's promised envelope against what the file observed (TTFT and inter-token p50/p95,
throughput, responses within the promise, cost per response), and a diagnostic packet for each
promise it missed, naming the requests (lines of a log) behind the miss."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from decimal import Decimal
from typing import Any

from acceptance.models import Reservation
from annexes.document.blocks import kv
from engine.formatting import DASH, number, usd
from engine.inference.misses import InferenceMiss
from inference.selectors import ServedReading, served_readings


def _figure(value: Any, unit: str, *, cents: int = 2) -> str:
    if value is None:
        return DASH
    if unit == "USD":
        return usd(Decimal(str(value)), places=cents)
    return f"{number(float(value))} {unit}"


def _ms(value: float | None) -> str:
    return DASH if value is None else f"{number(value)} ms"


def _miss(name: str, miss: InferenceMiss) -> dict[str, Any]:
    return {
        "file": name,
        "promise": miss.label,
        "promised": _figure(miss.promised, miss.unit),
        "observed": _figure(miss.observed, miss.unit),
        "beyond": miss.beyond,
        "note": miss.note,
        "requests": [
            {"where": o.where, "ref": o.ref, "ttft": _ms(o.ttft_ms), "gap": _ms(o.worst_gap_ms),
             "tokens": o.output_tokens, "error": o.error[:120] if not o.ok else ""}
            for o in miss.requests
        ],
    }  # fmt: skip


def _file(reading: ServedReading) -> dict[str, Any]:
    f, row = reading.figures, reading.row
    served = f.get("completed", 0)
    return {
        "file": row.original_name,
        "label": row.label,
        "party": row.party,
        "sha256": row.sha256,
        "concurrency": f.get("concurrency"),
        "rows": [
            [r["label"], _figure(r["promised"], r["unit"]), _figure(r["observed"], r["unit"]),
             {True: "met", False: "missed", None: "nothing promised"}[r["met"]]]
            for r in f.get("rows", [])
        ],
        "within": f"{f.get('within_promise', 0):,} of {served:,} served "
                  f"({f.get('failed', 0):,} failed)",
        "cost_per_response": _figure(f.get("cost_per_response"), "USD", cents=6),
        "cost_per_response_within": _figure(
            f.get("cost_per_response_within"), "USD", cents=6
        ),
        "notes": [*f.get("notes", []), *([reading.error] if reading.error else [])],
        "misses": [_miss(row.original_name, m) for m in reading.misses]
                  or _unread_misses(reading),
    }  # fmt: skip


def _unread_misses(reading: ServedReading) -> list[dict[str, Any]]:
    """A file that cannot be read again still has its stored misses: a packet each, saying why
    it names no request."""
    if not reading.error:
        return []
    return [
        {"file": reading.row.original_name, "promise": r["label"],
         "promised": _figure(r["promised"], r["unit"]),
         "observed": _figure(r["observed"], r["unit"]),
         "beyond": 0, "note": reading.error, "requests": []}
        for r in reading.figures.get("rows", []) if r["met"] is False
    ]  # fmt: skip


def inference_part(
    reservation: Reservation, start: datetime | None, end: datetime | None
) -> list[dict[str, Any]]:
    """The snapshot's `inference` list: one entry per file read in the period."""
    return [_file(r) for r in served_readings(reservation=reservation, start=start, end=end)]


def _table(heading: str, head: list[str], rows: list[list[Any]]) -> dict[str, Any]:
    return {"type": "table", "heading": heading, "head": head, "rows": rows}


def _packet(n: int, miss: Mapping[str, Any]) -> list[dict[str, Any]]:
    head = kv(
        [("Promise", miss["promise"]), ("Promised", miss["promised"]),
         ("Observed", miss["observed"]), ("File", miss["file"]), ("Behind it", miss["note"])],
        heading=f"Inference miss {n}: {miss['promise']}",
    )  # fmt: skip
    lines = _table(
        f"Inference miss {n}: the requests behind it, worst first "
        f"({len(miss['requests'])} of {miss['beyond']})",
        ["Where (file)", "Request", "TTFT", "Worst token gap", "Tokens", "Failed"],
        [[f"{r['where']} ({miss['file']})", r["ref"], r["ttft"], r["gap"], r["tokens"],
          r["error"] or DASH] for r in miss["requests"]],
    )  # fmt: skip
    return [head, lines]


def inference_sections(files: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The inference section and its packets; nothing for a reservation without read files."""
    if not files:
        return []
    blocks: list[dict[str, Any]] = []
    for f in files:
        concurrency = f["concurrency"] if f["concurrency"] is not None else DASH
        blocks.append(kv(
            [("File", f["file"] + (f" — {f['label']}" if f["label"] else "")),
             ("Uploaded by", f"the {f['party']}"), ("SHA-256", f["sha256"][:12] + "…"),
             ("Measured at concurrency", concurrency),
             ("Responses within the promise", f["within"]),
             ("Cost per response", f["cost_per_response"]),
             ("Cost per response within the promise", f["cost_per_response_within"]),
             *[("Note", note) for note in f["notes"]]],
            heading=f"Served responses: {f['file']}",
        ))  # fmt: skip
        blocks.append(_table(f"{f['file']}: promised against observed",
                             ["Promise", "Promised", "Observed", ""], f["rows"]))  # fmt: skip
    misses = [m for f in files for m in f["misses"]]
    packets = [b for n, m in enumerate(misses, 1) for b in _packet(n, m)]
    return [
        {"id": "inference", "title": "Inference: served responses against the promise",
         "blocks": blocks},
        {"id": "inference-misses", "title": "Missed inference promises: diagnostic packets",
         "blocks": packets},
    ]  # fmt: skip
