"""Flight Recorder dumps are folded in column-wise when they have the common shape, entry by
entry otherwise. Both ways must give the same verdict, whatever mix of shapes arrives."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from engine.failures.flightrec import Collectives, analyse_dumps

T0 = 1_714_564_601_000_000_000


def entry(seq: int, *, pg: str = "0", size: int = 1024, state: str = "completed") -> dict:
    return {
        "process_group": (pg, "default_pg" if pg == "0" else f"tp_{pg}"),
        "collective_seq_id": seq,
        "profiling_name": "nccl:all_reduce",
        "input_sizes": [[size, 1024]],
        "input_dtypes": ["Float"],
        "output_sizes": [[size, 1024]],
        "state": state,
        "is_p2p": False,
        "time_created_ns": T0 + seq * 10**9,
    }


def dump(entries: list[dict], ranks: int) -> dict[str, Any]:
    cfg = {"0": {"name": "0", "desc": "default_pg", "ranks": str(list(range(ranks)))}}
    return {"version": "2.5", "pg_config": cfg, "pg_status": {}, "entries": entries}


def healthy(ranks: int, *, upto: int = 20, groups: tuple[str, ...] = ("0",)) -> dict[int, dict]:
    out = {}
    for r in range(ranks):
        rows = [entry(s, pg=g, state="completed" if s < upto else "started")
                for s in range(1, upto + 1) for g in groups]  # fmt: skip
        out[r] = dump(rows, ranks)
    return out


def never_entered(ranks: int = 8, culprit: int = 5) -> list[tuple[int, dict]]:
    dumps = healthy(ranks)
    dumps[culprit]["entries"] = dumps[culprit]["entries"][:-1]
    return list(dumps.items())


def size_mismatch_in_second_group() -> list[tuple[int, dict]]:
    dumps = healthy(8, groups=("0", "1"))
    for e in dumps[3]["entries"]:
        if e["process_group"][0] == "1" and e["collective_seq_id"] == 7:
            e["input_sizes"] = [[512, 1024]]
    return list(dumps.items())


def with_p2p_and_old_fields() -> list[tuple[int, dict]]:
    dumps = healthy(6)
    send = {**entry(0), "is_p2p": True, "profiling_name": "nccl:send"}
    dumps[1]["entries"].insert(3, send)
    for e in dumps[4]["entries"]:  # an older dump: no collective_seq_id, only seq_id
        e["seq_id"] = e.pop("collective_seq_id")
    dumps[2]["entries"] = dumps[2]["entries"][:-2]
    return list(dumps.items())


def shifted_windows_and_a_replaced_dump() -> list[tuple[int, dict]]:
    dumps = healthy(8, upto=30)
    for r in (0, 1, 2):  # ring buffers that kept a different span of the same history
        dumps[r]["entries"] = dumps[r]["entries"][10 - r :]
    stale = copy.deepcopy(dumps[6])
    dumps[6]["entries"] = dumps[6]["entries"][:-1]  # the later dump for rank 6 is behind
    return [(6, stale), *dumps.items()]


def repeated_sequence_number() -> list[tuple[int, dict]]:
    dumps = healthy(4)
    dumps[2]["entries"].append(entry(20, size=8, state="started"))  # seq 20 again, new sizes
    return list(dumps.items())


CASES = {
    "never-entered": never_entered,
    "second-group-mismatch": size_mismatch_in_second_group,
    "p2p-and-old-fields": with_p2p_and_old_fields,
    "shifted-and-replaced": shifted_windows_and_a_replaced_dump,
    "repeated-seq": repeated_sequence_number,
}


def verdict(dumps: list[tuple[int, dict]]) -> dict[str, Any]:
    collectives = Collectives()
    for rank, d in dumps:
        collectives.add(rank, copy.deepcopy(d))
    result = analyse_dumps(collectives, {r: f"rank{r}.pkl" for r, _ in dumps}, world_size=None)
    return {
        "missing": result.missing_dumps,
        "suspects": result.suspects,
        "stuck": result.stuck,
        "waiting": sorted(result.waiting),
        "mismatches": [(m.seq, m.pg, m.field, m.ranks, m.values) for m in result.mismatches],
        "events": sorted((e.rank, e.kind, e.text, str(e.time_utc)) for e in result.events),
    }


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_column_wise_and_entry_wise_reading_agree(case, monkeypatch):
    dumps = CASES[case]()
    fast = verdict(dumps)
    monkeypatch.setattr(Collectives, "_add_bulk", lambda self, rank, entries, summary: False)
    assert fast == verdict(dumps)


def test_the_verdicts_name_the_planted_rank():
    assert verdict(never_entered())["suspects"] == [5]
    mismatch = verdict(size_mismatch_in_second_group())["mismatches"]
    assert [(m[0], m[1], m[2], m[3]) for m in mismatch] == [(7, "1", "input_sizes", [3])]


def test_a_healthy_job_is_one_block_per_shape():
    """The saving itself: identical dumps share a block rather than a group per entry."""
    collectives = Collectives()
    for rank, d in healthy(64).items():
        collectives.add(rank, d)
    assert len(collectives._blocks) == 1
    assert len(collectives.columns["0"]) == 20  # expanded on first read, one group per seq
