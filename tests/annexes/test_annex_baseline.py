"""The hand-over baseline section of the annex, from a snapshot (no database)."""

from __future__ import annotations

from annexes.document.baseline import baseline_section


def _snapshot() -> dict:
    sizes = [1 << i for i in range(20, 34)]
    whole = {
        "collective": "all_reduce",
        "node": "whole allocation",
        "ranks": 16,
        "command": "mpirun -np 16 ./build/all_reduce_perf -b 8 -e 8G -f 2 -g 1",
        "nccl_version": "2.21.5",
        "large_message_busbw_min_gbps": 372.4,
        "busbw_by_size": [[s, min(380.0, s / (1 << 22) * 9.0)] for s in sizes],
    }
    per_node = [
        {"collective": "all_reduce", "node": node, "large_message_busbw_min_gbps": bw}
        for node, bw in (("gpu-a", 450.1), ("gpu-b", 401.7), ("gpu-c", 447.9))
    ]
    return {
        "fixture": {"spec": {"thresholds": {"busbw_gbps": {"all_reduce": 368.0}}}},
        "acceptance": {"kind": "accepted", "by": "alice", "at": "2027-01-30T09:00:00+00:00"},
        "baseline": {"nccl": [whole, *per_node], "versions": {"nccl": ["2.21.5"]}},
    }


def test_one_row_per_collective_sets_the_floor_beside_the_whole_run_and_the_weakest_node():
    section = baseline_section(_snapshot())
    assert section is not None
    blocks = {block.get("heading"): block for block in section["blocks"]}
    table = blocks["Bus bandwidth per collective"]
    # Every collective had the same number of node runs: the count moves into the text.
    assert table["head"][3] == "Lowest node (where)"
    assert table["rows"] == [["all_reduce", "368.0", "372.4", "401.7 (gpu-b)", "447.9", "450.1"]]
    assert "16 ranks, NCCL 2.21.5" in table["intro"] and "3 per collective" in table["intro"]


def test_the_chart_draws_the_agreed_floor_and_its_legend_prints_beside_it():
    section = baseline_section(_snapshot())
    assert section is not None
    chart = next(b for b in section["blocks"] if b["type"] == "svg")
    assert "stroke-dasharray" in chart["svg"]  # the 368 GB/s floor
    assert "<text" in chart["svg"] and "all_reduce" not in chart["svg"]  # axes only
    assert [name for _, name in chart["legend"]] == ["all_reduce (whole allocation)"]
    assert chart["dashed"] == "agreed floor"


def test_the_exact_commands_print_verbatim_as_a_shell_listing():
    section = baseline_section(_snapshot())
    assert section is not None
    commands = next(b for b in section["blocks"] if b.get("heading") == "Exact commands")
    assert commands["type"] == "code"
    assert commands["text"] == (
        "# all_reduce\nmpirun -np 16 ./build/all_reduce_perf -b 8 -e 8G -f 2 -g 1"
    )


def test_no_decision_and_no_baseline_means_no_section():
    assert baseline_section({"acceptance": None, "baseline": None}) is None


def test_twelve_collectives_get_twelve_colours_in_the_order_the_chart_draws_them():
    from annexes.document.charts import busbw_chart_svg, chart_legend

    series = {f"c{i:02d}": [(1024.0, float(i)), (2048.0, float(i) + 1)] for i in range(12)}
    legend = chart_legend(series)
    assert [name for _, name in legend] == sorted(series)
    assert len({colour for colour, _ in legend}) == 12
    svg = busbw_chart_svg(series)
    drawn = [svg.index(f'stroke="{colour}"') for colour, _ in legend]
    assert drawn == sorted(drawn)  # the legend reads in the order the lines are drawn
