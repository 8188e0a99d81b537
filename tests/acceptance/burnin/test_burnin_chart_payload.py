"""The chart JSON carries its text and colours from Python, so the browser prints what pages and
PDFs print: static/js/burnin.js and compare.js format no size or rate and hold no palette."""

from __future__ import annotations

from pathlib import Path

from engine.domain import COLLECTIVE_COLOURS, PALETTE
from engine.evidence import burnin_report
from engine.evidence.fixtures.spec import default_spec
from engine.evidence.parsers import parse_evidence, to_json
from engine.formatting import bandwidth, data_size

RECOVERY = Path(__file__).resolve().parents[2] / "data" / "failures" / "recovery"


def test_the_chart_json_brings_sizes_rates_and_colours_already_decided() -> None:
    parsed = parse_evidence((RECOVERY / "nccl_all_reduce_recovered.txt").read_bytes())
    files = [
        {"id": 1, "name": "a.txt", "sha256": "0" * 64, "node": node, "kind": "nccl-tests",
         "parsed": to_json(parsed)}
        for node in ("node-a", "node-b")
    ]  # fmt: skip
    spec = default_spec(gpu_model="H200", nodes=2, gpus_per_node=8)
    charts = burnin_report.charts(files, spec)

    assert charts["palette"] == list(PALETTE)
    busbw = charts["busbw"][0]
    series = busbw["series"][0]
    assert series["x_text"] == [data_size(x) for x in series["x"]]
    assert busbw["large_text"] == data_size(busbw["large_bytes"]) == "1 GiB"
    assert busbw["threshold_text"] == bandwidth(busbw["threshold"])
    per_node = charts["nodes"]["busbw"][0]
    assert per_node["colour"] == COLLECTIVE_COLOURS[per_node["name"]]


def test_the_browser_scripts_keep_no_formatter_or_palette_of_their_own() -> None:
    js = Path(__file__).resolve().parents[3] / "static" / "js"
    for name in ("burnin.js", "compare.js"):
        text = (js / name).read_text()
        assert 'PALETTE = ["' not in text and "function bytes" not in text, name
        assert "KiB" not in text and "PALETTE = data.palette" in text, name
