"""Shared names: one list of collectives and evidence kinds, one colour per collective."""

from __future__ import annotations

from engine.domain import (
    COLLECTIVE_COLOURS,
    COLLECTIVES,
    EVIDENCE_ALTERNATIVES,
    EVIDENCE_KINDS,
    MONITOR_KIND_LABELS,
    PALETTE,
    PROBE_KIND_LABELS,
    series_colours,
)
from engine.evidence.parsers import KINDS
from engine.evidence.parsers.nccl_model import collective_from_program


def test_every_collective_is_known_to_the_parser_and_has_its_own_colour() -> None:
    assert "alltoallv" in COLLECTIVES
    assert all(collective_from_program(f"./build/{c}_perf") == c for c in COLLECTIVES)
    assert len(set(COLLECTIVE_COLOURS.values())) == len(COLLECTIVES)


def test_each_evidence_kind_has_one_parser() -> None:
    # A kind that stands in for a required one (ibqueryerrors for perfquery) has a parser too.
    stand_ins = {alt for alts in EVIDENCE_ALTERNATIVES.values() for alt in alts}
    optional = set(PROBE_KIND_LABELS) | set(MONITOR_KIND_LABELS)
    assert set(KINDS) == set(EVIDENCE_KINDS) | stand_ins | optional
    assert not optional & set(EVIDENCE_KINDS)  # a burn-in needs no probe or monitor by default
    assert set(EVIDENCE_ALTERNATIVES) <= set(EVIDENCE_KINDS)


def test_a_collective_keeps_its_colour_whatever_else_is_drawn() -> None:
    alone = series_colours(names=["alltoall"])
    mixed = series_colours(names=["all_reduce", "alltoall", "custom_bf16"])
    assert alone["alltoall"] == mixed["alltoall"] == COLLECTIVE_COLOURS["alltoall"]
    assert mixed["custom_bf16"] not in {COLLECTIVE_COLOURS["all_reduce"], alone["alltoall"]}


def test_unknown_names_share_the_palette_without_repeats_up_to_twelve() -> None:
    colours = series_colours(names=[f"c{i:02d}" for i in range(12)])
    assert set(colours.values()) == set(PALETTE)
