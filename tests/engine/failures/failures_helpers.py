"""Shared helpers for the failed-run analysis tests (module name unique across the suite)."""

from __future__ import annotations

from pathlib import Path

from engine.failures import Event, normalise_text

DATA = Path(__file__).resolve().parents[2] / "data" / "failures"


def events_of(name: str, *, year: int = 2024) -> list[Event]:
    return normalise_text((DATA / name).read_text(), source=name, year=year)


def kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]


def one(text: str, *, year: int = 2024) -> Event:
    events = normalise_text(text, source="t", year=year)
    assert len(events) == 1, [(e.kind, e.text) for e in events]
    return events[0]
