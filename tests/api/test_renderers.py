"""The API's JSON renderer writes exactly DRF's bytes: a client, an ETag or a stored replay can
never tell which printed an answer."""

from __future__ import annotations

import datetime as dt
import uuid
from collections import OrderedDict
from dataclasses import dataclass
from decimal import Decimal
from enum import Enum
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.utils.translation import gettext_lazy
from rest_framework import renderers
from rest_framework.utils.serializer_helpers import ReturnDict, ReturnList

from api.renderers import JSONRenderer, PrintedJSON, PrintedJSONRenderer
from bids.choices import BidStatus

PARIS = ZoneInfo("Europe/Paris")


class Colour(Enum):
    RED = 1.5


@dataclass
class Point:
    x: int


def _values() -> dict[str, Any]:
    """What answers hold, and what they might: every kind of value DRF's encoder knows."""
    return {
        "text": 'Nœud H100 — 8×GPU, «prix» 日本語 😀 "quoted" \\ / \t\n\x00\x1f\x7f',
        "separators": "line\u2028paragraph\u2029end",
        "empty": "",
        "ints": [0, -1, 2**53 + 1, 2**63 - 1, -(2**63), 2**64 - 1],
        "big_ints": [2**64, -(2**63) - 1, 10**30],
        "floats": [0.1, 0.30000000000000004, 1.0, -0.0, 100.0, 1e-4, 12345678.9, 1e15],
        "odd_floats": [1e-7, 1e-5, 5e-324, 1e16, 1.7976931348623157e308, 1e22, -2.5e-9],
        "decimals": [Decimal("12.500"), Decimal("0.1"), Decimal("1E-7"), Decimal("1E+20")],
        "utc": dt.datetime(2026, 3, 1, 12, 30, 5, 123456, tzinfo=dt.UTC),
        "paris": dt.datetime(2026, 7, 1, 9, 0, tzinfo=PARIS),
        "naive": dt.datetime(2026, 1, 2, 3, 4, 5),
        "date": dt.date(2026, 2, 28),
        "time": dt.time(23, 59, 58, 1000),
        "timedelta": dt.timedelta(hours=1, microseconds=5),
        "uuid": uuid.UUID("12345678-1234-5678-1234-567812345678"),
        "lazy": gettext_lazy("Bid deadline"),
        "choice": BidStatus.SUBMITTED,
        "bytes": b"raw",
        "tuple": (1, "two", None),
        "set_like": frozenset({3}),
        "generator": (n * 2 for n in range(3)),
        "nested": ReturnDict(
            {"rows": ReturnList([{"a": [True, False, None]}], serializer=None)}, serializer=None
        ),
        "ordered": OrderedDict([("z", 1), ("a", 2)]),
        "other_keys": {1: "one", 2.5: "half", None: "none", "é": "text"},
        "printed": PrintedJSON('{"as":"text"}'),
    }


def _both(make: Any, **render: Any) -> tuple[bytes, bytes]:
    """The bytes DRF's renderer and ours print for the same value, each built afresh (a
    generator is read once)."""
    return renderers.JSONRenderer().render(make(), **render), JSONRenderer().render(
        make(), **render
    )


@pytest.mark.parametrize("key", list(_values()))
def test_each_kind_of_value_prints_as_drf_prints_it(key):
    drf, ours = _both(lambda: {key: _values()[key]})
    assert ours == drf


def test_a_whole_answer_prints_as_drf_prints_it():
    drf, ours = _both(lambda: [_values(), {"page": 2, "results": [_values()]}])
    assert ours == drf
    assert b"\\u2028" in ours and "\u2028".encode() not in ours


def test_an_ordered_dict_keeps_its_own_order():
    def moved() -> OrderedDict[str, int]:
        rows = OrderedDict([("first", 1), ("second", 2)])
        rows.move_to_end("first")
        return rows

    drf, ours = _both(moved)
    assert ours == drf == b'{"second":2,"first":1}'


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf"), Decimal("NaN")])
def test_nan_and_infinity_are_refused_as_drf_refuses_them(bad):
    with pytest.raises(ValueError, match="Out of range float values"):
        JSONRenderer().render({"score": [1, {"total": bad}]})


@pytest.mark.parametrize("bad", [Colour.RED, Point(1), object()])
def test_what_drf_cannot_print_is_refused_as_drf_refuses_it(bad):
    with pytest.raises(TypeError):
        renderers.JSONRenderer().render({"value": bad})
    with pytest.raises(TypeError):
        JSONRenderer().render({"value": bad})


def test_a_cycle_is_refused_as_drf_refuses_it():
    rows: list[Any] = []
    rows.append(rows)
    with pytest.raises(ValueError, match="Circular reference"):
        JSONRenderer().render({"rows": rows})


def test_an_indented_answer_prints_as_drf_prints_it():
    for render in ({"accepted_media_type": "application/json; indent=2"},
                   {"renderer_context": {"indent": 4}}):  # fmt: skip
        drf, ours = _both(lambda: {"a": [1, {"b": "ç"}]}, **render)
        assert ours == drf and b"\n" in ours


def test_no_answer_is_an_empty_body():
    assert JSONRenderer().render(None) == b""


def test_a_printed_part_is_written_as_it_is_after_the_rest():
    data = {"state": "ready", "note": "1e-7 ≠ 0", "matrix": PrintedJSON('{"x":[1e-07]}')}
    assert PrintedJSONRenderer().render(data) == (
        b'{"state":"ready","note":"1e-7 \xe2\x89\xa0 0","matrix":{"x":[1e-07]}}'
    )


def test_the_api_answers_through_it(buyer):
    client = buyer.client()
    response = client.get("/api/v1/me/", HTTP_ACCEPT="application/json")
    assert isinstance(response.accepted_renderer, JSONRenderer)
    assert response.content == renderers.JSONRenderer().render(response.data)
    page = client.get("/api/v1/me/", HTTP_ACCEPT="text/html")
    assert page.status_code == 200 and b"&quot;username&quot;" in page.content
