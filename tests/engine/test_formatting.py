"""One rule per unit: durations, sizes, bandwidths and link rates read the same everywhere."""

from __future__ import annotations

from decimal import Decimal

import pytest

from engine import formatting


@pytest.mark.parametrize(
    ("minutes", "text"),
    [
        (0, "0 min"),
        (1, "1 min"),
        (59, "59 min"),
        (60, "1 h"),
        (90, "90 min"),
        (150, "150 min"),
        (240, "4 h"),
        (1440, "24 h"),  # a day is still said in hours
        (2870, "2870 min"),
        (2880, "2 d"),  # whole days from 48 h on
        (4320, "3 d"),
        (4380, "73 h"),
        (7.5, "7.5 min"),
        (-30, "-30 min"),
        (-2880, "-2 d"),
        (None, "—"),
        (True, "—"),
        ("15", "—"),
    ],
)
def test_it_prints_a_duration_one_way(minutes: object, text: str) -> None:
    assert formatting.duration(minutes) == text


@pytest.mark.parametrize(
    ("size", "text"),
    [
        (0, "0 B"),
        (1, "1 B"),
        (1000, "1,000 B"),
        (1023, "1,023 B"),
        (1024, "1 KiB"),
        (1536, "1.5 KiB"),
        (1 << 20, "1 MiB"),
        ((1 << 20) - 1, "1,024 KiB"),
        (10 * (1 << 20), "10 MiB"),
        (1 << 30, "1 GiB"),
        (8 << 30, "8 GiB"),
        ((1 << 30) + 1, "1 GiB"),
        (1 << 40, "1 TiB"),
        (2048 << 40, "2,048 TiB"),
        (-2048, "-2 KiB"),
        (None, "—"),
    ],
)
def test_it_prints_a_size_in_iec_units(size: object, text: str) -> None:
    assert formatting.data_size(size) == text


def test_the_exact_size_adds_the_byte_count_only_where_a_unit_hides_it() -> None:
    assert formatting.data_size_exact(1 << 30) == "1 GiB (1,073,741,824 bytes)"
    assert formatting.data_size_exact(1023) == "1,023 B"
    assert formatting.data_size_exact(None) == "—"


@pytest.mark.parametrize(
    ("value", "bandwidth", "rate"),
    [
        (0, "0 GB/s", "0 Gb/s"),
        (400, "400 GB/s", "400 Gb/s"),
        (400.0, "400 GB/s", "400 Gb/s"),
        (46.5, "46.5 GB/s", "46.5 Gb/s"),
        (385.127, "385.13 GB/s", "385.13 Gb/s"),
        (1500, "1,500 GB/s", "1,500 Gb/s"),
        (None, "—", "—"),
    ],
)
def test_bandwidth_is_bytes_and_a_link_rate_is_bits(
    value: object, bandwidth: str, rate: str
) -> None:
    assert formatting.bandwidth(value) == bandwidth
    assert formatting.link_rate(value) == rate


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0, "0 min 00 s"),
        (59, "0 min 59 s"),
        (3599, "59 min 59 s"),
        (3600, "1 h 00 min"),
        (7500, "2 h 05 min"),
        (-249, "4 min 09 s overdue"),
    ],
)
def test_a_running_clock_counts_in_hours_and_minutes_then_seconds(seconds: int, text: str) -> None:
    # static/js/incidents.js mirrors this rule for the live tick.
    assert formatting.countdown(seconds) == text


@pytest.mark.parametrize(
    ("value", "places", "text"),
    [
        (Decimal("86554.4"), 2, "$86,554.40"),
        (Decimal("0.005"), 2, "$0.01"),  # half a cent rounds up, as every bill does
        (2.675, 2, "$2.68"),  # a float rounds as it reads, not as it is stored
        (Decimal("-12.5"), 2, "-$12.50"),  # credits above the bill: the sign before the dollar
        (Decimal("-0.001"), 2, "$0.00"),
        (Decimal("2.00175"), 4, "$2.0018"),  # a price per useful GPU-hour
        (None, 2, "—"),
    ],
)
def test_money_prints_to_the_cent_rounded_half_up(value: object, places: int, text: str) -> None:
    assert formatting.usd(value, places=places) == text


def test_money_rounds_to_the_cent_the_same_way_it_prints() -> None:
    amount = Decimal("1234.565")
    assert formatting.cents(amount) == Decimal("1234.57")
    assert formatting.usd(formatting.cents(amount)) == formatting.usd(amount)


@pytest.mark.parametrize(
    ("value", "places", "text"),
    [
        (Decimal("99.5"), 3, "99.500 %"),
        (Decimal("99.9995"), 3, "100.000 %"),
        (Decimal("2.50"), None, "2.5 %"),  # a credit tier as the terms state it
        (Decimal("25"), None, "25 %"),
        (None, 3, "—"),
    ],
)
def test_a_percentage_prints_with_a_space_before_the_sign(
    value: object, places: int | None, text: str
) -> None:
    assert formatting.percent(value, places=places) == text
