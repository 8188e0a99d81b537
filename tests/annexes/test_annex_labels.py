"""How the annex prints values that a spec or snapshot stores raw."""

from __future__ import annotations

from annexes.document.labels import flat, humanise


def test_sizes_print_as_people_read_them_with_the_exact_count():
    assert flat({"large_message_bytes": 1 << 30}, "thresholds") == [
        ("Thresholds › large message size", "1 GiB (1,073,741,824 bytes)")
    ]


def test_bandwidths_are_bytes_and_link_rates_bits():
    assert humanise("thresholds.busbw_gbps.all_reduce") == "Thresholds › busbw (GB/s) › all reduce"
    assert humanise("ib_rate_gbps") == "IB rate (Gb/s)"
