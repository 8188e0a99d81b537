"""The charts' figures as tables (each chart's "The figures as a table"), printed in Python: four
template loops over parallel lists, localised value by value, were an eighth of the comparison
page's time. The markup is the one `evaluation/compare.html` places; every value is escaped here,
numbers localised as a template prints them."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from decimal import Decimal
from typing import Any

from django.utils import numberformat
from django.utils.formats import get_format
from django.utils.html import escape

from core.templatetags.formatting import share

DASH = "—"


Text = Callable[[Any], str]


def _localised() -> Text:
    """What `{{ value }}` prints, escaped, with the active language's separators read once:
    read per number (as `localize` does), they were most of the tables' time. A number's text
    is digits, a sign and these separators, escaped here once."""
    decimal = str(escape(get_format("DECIMAL_SEPARATOR")))
    grouping = get_format("NUMBER_GROUPING")
    thousands = str(escape(get_format("THOUSAND_SEPARATOR")))

    def text(value: Any) -> str:
        if isinstance(value, int | float | Decimal) and not isinstance(value, bool):
            return str(numberformat.format(value, decimal, None, grouping, thousands))
        return str(escape(value))

    return text


def _at(values: Sequence[Any], i: int) -> Any:
    return values[i] if i < len(values) else None


def _table(heads: Iterable[str], rows: Iterable[Iterable[Any]]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in heads)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return (
        f'<table class="table compact"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
    )


def _scores(charts: dict[str, Any], text: Text) -> str:
    stacks = charts.get("scores", [])
    rows = (
        [text(name), *(text(_at(s["values"], i)) for s in stacks)]
        for i, name in enumerate(charts.get("names", []))
    )
    return _table(["Bid", *(s["name"] for s in stacks)], rows)


def _prices(charts: dict[str, Any], text: Text) -> str:
    prices = charts.get("prices", {})
    listed, effective = prices.get("list", []), prices.get("effective", [])

    def price(values: Sequence[Any], i: int) -> str:
        value = _at(values, i)
        return DASH if value is None else text(value)

    rows = (
        [text(name), price(listed, i), price(effective, i)]
        for i, name in enumerate(charts.get("names", []))
    )
    return _table(["Bid", "List ($/GPU-h)", "Effective ($/useful GPU-h)"], rows)


def _curves(charts: dict[str, Any], text: Text) -> str:
    def row(curve: dict[str, Any]) -> list[str]:
        chosen, optimum = curve["chosen"], curve.get("optimum") or ["", ""]
        return [
            text(curve["name"]),
            text(chosen[0]),
            text(chosen[1]),
            text(optimum[0] or "the same"),
            text(optimum[1] or DASH),
        ]

    heads = ["Bid", "Interval scored (min)", "Goodput there (%)", "Best interval (min)"]
    return _table([*heads, "Goodput there (%)"], map(row, charts.get("curves", [])))


def _shares(charts: dict[str, Any], text: Text) -> str:
    rows = ([text(x["name"]), text(share(x["share"]))] for x in charts.get("shares", []))
    return _table(["Bid", "Share of draws won"], rows)


TABLES: dict[str, Callable[[dict[str, Any], Text], str]] = {
    "scores": _scores,
    "prices": _prices,
    "curves": _curves,
    "shares": _shares,
}


def chart_table(charts: dict[str, Any], name: str) -> str:
    """The figures of the chart `name` ("scores", "prices", "curves" or "shares")."""
    return TABLES[name](charts, _localised())
