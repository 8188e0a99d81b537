"""Which column of a provider's file holds which of our fields, and a guess from header names.

A provider's export keeps its headers from month to month, so the mapping is kept per provider
and reused; the guess only fills the form the first time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# Our fields, in the order pages show them, with what they mean.
FIELDS: dict[str, str] = {
    "period_start": "Period start",
    "period_end": "Period end",
    "node": "Node or instance id",
    "gpus": "GPU count",
    "quantity": "Hours or GPU-minutes",
    "rate": "Rate per GPU-hour",
    "amount": "Amount",
    "line_type": "Line type (gpu / egress / fee)",
}
REQUIRED = ("period_start", "node", "gpus", "quantity", "rate", "amount")
OPTIONAL = ("period_end", "line_type")

HOURS = "hours"
GPU_MINUTES = "gpu-minutes"
UNITS = {HOURS: "Hours per line (× GPU count)", GPU_MINUTES: "GPU-minutes (already × GPUs)"}

# Header words that suggest each field; the first field whose pattern matches a header wins.
_HINTS: dict[str, tuple[str, ...]] = {
    "period_start": (r"(^|_)start", r"^from$", r"begin", r"(^|_)date$", r"^time"),
    "period_end": (r"(^|_)end($|_)", r"^to$", r"until", r"stop"),
    "node": (r"node", r"instance", r"host", r"machine", r"server", r"resource"),
    "gpus": (r"gpu_?(count|s)$", r"^gpus?$", r"num_?gpus", r"gpu_?qty", r"devices"),
    "quantity": (r"gpu_?min", r"minutes", r"hours?$", r"duration", r"usage", r"quantity|qty"),
    "rate": (r"rate", r"unit_?price", r"price"),
    "amount": (r"amount", r"total", r"cost", r"charge", r"subtotal"),
    "line_type": (r"^(line_?)?type$", r"kind", r"category", r"sku", r"service"),
}

# Headers a field's hints match but that never hold it: the billing period is not the usage
# period, an account id is no quantity, a currency conversion rate is no price per GPU-hour, and
# a resource group or region names many nodes, not one (each was guessed wrongly on real exports).
_AVOID: dict[str, str] = {
    "period_start": r"bill|invoice",
    "period_end": r"bill|invoice",
    "node": r"group|location|region|zone|type|account|subscription|project",
    "quantity": r"(^|_)ids?$|account|conversion|exchange|normali[sz]",
    "rate": r"conversion|exchange|(^|_)fx($|_)|(^|_)blended",
    "amount": r"(^|_)ids?$|account",
}


def _key(header: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", header.strip().lower()).strip("_")


@dataclass(frozen=True)
class Mapping:
    """Our field → the file's header name; the quantity's unit; a strptime format or "" (ISO)."""

    columns: dict[str, str] = field(default_factory=dict)
    unit: str = HOURS
    date_format: str = ""

    def missing(self, headers: list[str]) -> list[str]:
        """Our required fields that map to no header of this file (by label)."""
        present = set(headers)
        return [
            FIELDS[f] for f in REQUIRED if not self.columns.get(f) or self.columns[f] not in present
        ] + [
            f"{FIELDS[f]} ('{self.columns[f]}' is not a header)"
            for f in OPTIONAL
            if self.columns.get(f) and self.columns[f] not in present
        ]

    def to_json(self) -> dict[str, object]:
        return {"columns": dict(self.columns), "unit": self.unit, "date_format": self.date_format}

    @classmethod
    def from_json(cls, data: dict[str, object] | None) -> Mapping:
        data = data or {}
        columns = data.get("columns") or {}
        return cls(
            columns={str(k): str(v) for k, v in dict(columns).items() if v},  # type: ignore[call-overload]
            unit=str(data.get("unit") or HOURS),
            date_format=str(data.get("date_format") or ""),
        )


def guess_mapping(headers: list[str]) -> Mapping:
    """Match each header to at most one field, by the hints above and never to a header the
    field avoids; the unit from the quantity's header (minutes → GPU-minutes)."""
    columns: dict[str, str] = {}
    used: set[str] = set()
    for name, patterns in _HINTS.items():
        for pattern in patterns:
            avoid = _AVOID.get(name)
            hit = next(
                (
                    h
                    for h in headers
                    if h not in used
                    and re.search(pattern, _key(h))
                    and not (avoid and re.search(avoid, _key(h)))
                ),
                None,
            )
            if hit is not None:
                columns[name] = hit
                used.add(hit)
                break
    quantity = _key(columns.get("quantity", ""))
    unit = GPU_MINUTES if "min" in quantity else HOURS
    return Mapping(columns=columns, unit=unit)
