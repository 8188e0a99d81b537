"""The four capacities as the chart draws them and as its table says them (the same numbers)."""

from __future__ import annotations

from typing import Any

from engine.formatting import fixed
from observed.selectors import ObservedReport

SERIES = (
    ("contracted", "Contracted", "#1f2937"),
    ("allocatable", "Allocatable", "#2563eb"),
    ("healthy", "Healthy", "#15803d"),
    ("in_use", "In use", "#b45309"),
)


def capacity_chart(report: ObservedReport) -> dict[str, Any] | None:
    """Days and the four series in GPUs (two places; None where nothing was observed)."""
    if report.observed is None or not report.observed.days:
        return None
    days = report.observed.days
    return {
        "days": [str(d.day) for d in days],
        "series": [
            {
                "key": key,
                "label": label,
                "colour": colour,
                "values": [
                    None
                    if getattr(d, key) is None
                    else float(fixed(getattr(d, key)).replace(",", ""))
                    for d in days
                ],
            }
            for key, label, colour in SERIES
        ],
    }
