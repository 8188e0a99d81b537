"""The figures a pilot verifies, read from parsed evidence where the checks read them: the
weakest reading of each over every readable file of its kind, with the file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.evidence.checks.model import EvidenceItem, evidence_item_from_text
from engine.evidence.large_message import LARGE_MESSAGE_BYTES
from engine.evidence.pilot_figures import SPECS, against_claim, show, verified_figures

DATA = Path(__file__).resolve().parents[2] / "data" / "evidence"


def _item(name: str, ref: str | None = None) -> EvidenceItem:
    return evidence_item_from_text(ref=ref or name, node=None, text=(DATA / name).read_bytes())


def _figures(*names: str) -> dict[str, object]:
    found = verified_figures([_item(n) for n in names], large_bytes=LARGE_MESSAGE_BYTES)
    return {f.key: f for f in found}


def test_the_fabric_figures_are_the_slowest_hca_and_the_worst_tail():
    figures = _figures(
        "perftest/ib_write_bw_two_hcas_mlx5_1_at_198gbits.txt",
        "perftest/ib_write_lat_percentiles_three_sizes.txt",
    )
    fabric = figures["fabric_bandwidth"]
    assert fabric.value == pytest.approx(198, abs=1) and "mlx5_1" in fabric.where
    assert fabric.ref == "perftest/ib_write_bw_two_hcas_mlx5_1_at_198gbits.txt" and fabric.line
    latency = figures["fabric_p99_latency"]
    assert latency.value > 0 and latency.line
    assert set(figures) == {"fabric_bandwidth", "fabric_p99_latency"}


def test_nvlink_is_the_slowest_one_way_device_to_device_copy():
    (nvlink,) = _figures("nvbandwidth/nvbandwidth_v0.8_8xh100_h2d_d2h_d2d_read_ce.txt").values()
    assert nvlink.key == "nvlink_bandwidth"
    assert "device_to_device_memcpy_read_ce" in nvlink.where and "←" in nvlink.where
    # A bidirectional testcase adds both directions up: never compared with a one-way figure.
    bidir = _figures(
        "nvbandwidth/nvbandwidth_v0.8_4xh200_bidir_d2d_read_three_matrices_verbose_waived.txt"
    )
    assert "bidirectional" not in getattr(bidir.get("nvlink_bandwidth"), "where", "")


def test_bus_bandwidth_is_the_lowest_large_message_row_and_the_app_its_median_step():
    figures = _figures(
        "burnin/nccl-tests/all_reduce_2node_pass.txt",
        "burnin/nccl-tests/all_reduce_2node_slow.txt",
        "burnin/step-times/step_times_16ranks.csv",
    )
    slow = _figures("burnin/nccl-tests/all_reduce_2node_slow.txt")["bus_bandwidth"]
    assert figures["bus_bandwidth"] == slow  # the weaker of the two runs
    assert figures["bus_bandwidth"].ref.endswith("all_reduce_2node_slow.txt")
    assert figures["app_step_time"].value > 0


def test_an_unreadable_file_verifies_nothing():
    broken = _item("perftest/broken_lat_row_missing_percentiles.txt")
    assert broken.parsed is None and broken.error_line == 19
    assert verified_figures([broken], large_bytes=LARGE_MESSAGE_BYTES) == []


def test_against_the_claim_below_one_always_falls_short():
    fabric, latency = SPECS["fabric_bandwidth"], SPECS["fabric_p99_latency"]
    assert against_claim(fabric, 198.0, 400.0) == pytest.approx(0.495)
    assert against_claim(latency, 4.0, 2.0) == pytest.approx(0.5)  # twice the claimed tail
    assert against_claim(fabric, 198.0, None) is None
    assert show(fabric, 198.37) == "198.37 Gb/s" and show(fabric, None) == "—"
