"""The comparison page's four charts for the summary PDF, as plain SVG (vectors in the PDF):
weighted scores per bid, list against effective price, goodput against checkpoint interval, and
the share of random weight draws each bid wins. Data is the page's own (`Comparison.charts`),
frozen in the summary's snapshot. Names come from providers: every text is escaped."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from engine.domain import PALETTE
from engine.formatting import percent

W, H = 640, 260
LEFT, RIGHT, TOP, BOTTOM = 170, 16, 12, 34
Block = dict[str, Any]
# A row label wraps onto two lines of this many characters (9 px DejaVu Sans fits them in LEFT)
# instead of being cut: "Some Long Provider Name · effective" must keep its last word.
LABEL_CHARS = 30
# Series are told apart by more than colour: bar parts by a fill pattern (the first solid), and
# curves by a dash pattern (the first solid); the legend names each one.
PATTERNS = ("solid", "hatched", "dotted", "cross-hatched", "striped")
DASHES = ("", "6 3", "2 2", "8 3 2 3", "1 3")


def _svg(body: list[str], height: int = H) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{height}" '
        f'viewBox="0 0 {W} {height}" font-family="DejaVu Sans, sans-serif" font-size="9">'
        + "".join(body)
        + "</svg>"
    )


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _nice(value: float) -> float:
    """The round number at or above `value` (1, 2, 2.5 or 5 × 10^k), so ticks read cleanly."""
    if value <= 0:
        return 1.0
    scale = 10 ** math.floor(math.log10(value))
    return next(m * scale for m in (1, 2, 2.5, 5, 10) if m * scale >= value * (1 - 1e-9))


def _x_axis(top: float, plot_h: float, x_max: float, unit: str) -> list[str]:
    plot_w = W - LEFT - RIGHT
    out = [f'<rect x="{LEFT}" y="{top}" width="{plot_w}" height="{plot_h}" fill="none" '
           'stroke="#999"/>']  # fmt: skip
    for i in range(6):
        value = x_max * i / 5
        px = LEFT + plot_w * i / 5
        out.append(f'<line x1="{px:.1f}" x2="{px:.1f}" y1="{top}" y2="{top + plot_h}" '
                   f'stroke="#e5e5e5"/><text x="{px:.1f}" y="{top + plot_h + 12}" '
                   f'text-anchor="middle">{value:.3g}</text>')  # fmt: skip
    out.append(f'<text x="{LEFT + plot_w / 2}" y="{top + plot_h + 26}" text-anchor="middle">'
               f"{escape(unit)}</text>")  # fmt: skip
    return out


def _wrap(text: str) -> list[str]:
    """At most two lines of LABEL_CHARS, broken between words; an ellipsis only past that."""
    words, lines, line = text.split(), [], ""
    for word in words:
        if line and len(line) + 1 + len(word) > LABEL_CHARS:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    lines.append(line)
    if len(lines) > 2 or any(len(x) > LABEL_CHARS for x in lines[:2]):
        second = " ".join(lines[1:])
        lines = [lines[0][:LABEL_CHARS], second[: LABEL_CHARS - 1] + "…"]
    return lines[:2]


def _label(x: float, y: float, text: str) -> str:
    lines = _wrap(text)
    spans = "".join(
        f'<tspan x="{x:.1f}" dy="{0 if i == 0 else 10}">{escape(line)}</tspan>'
        for i, line in enumerate(lines)
    )
    top = y - (5 if len(lines) > 1 else 0)
    return f'<text x="{x:.1f}" y="{top:.1f}" text-anchor="end">{spans}</text>'


def _patterns(key: str) -> str:
    """One fill pattern per stacked part after the first (drawn in white over its colour).
    `key` keeps the ids apart: the charts are inline in one HTML document."""
    shapes = {
        "hatched": '<path d="M0,6 L6,0" stroke="#fff" stroke-width="1.6"/>',
        "dotted": '<circle cx="3" cy="3" r="1.2" fill="#fff"/>',
        "cross-hatched": '<path d="M0,6 L6,0 M0,0 L6,6" stroke="#fff" stroke-width="1.1"/>',
        "striped": '<path d="M0,3 L6,3" stroke="#fff" stroke-width="1.4"/>',
    }
    return (
        "<defs>"
        + "".join(
            f'<pattern id="{key}-{name}" width="6" height="6" patternUnits="userSpaceOnUse">{shape}'
            "</pattern>"
            for name, shape in shapes.items()
        )
        + "</defs>"
    )


def _hbars(names: Sequence[str], stacks: Sequence[tuple[str, Sequence[float]]], unit: str) -> str:
    """Horizontal bars, one per name, each the sum of its stacked parts; each part has its
    colour and, after the first, a white pattern over it."""
    row_h = 24 if any(len(_wrap(n)) > 1 for n in names) else 18
    plot_h = max(len(names), 1) * row_h + 8
    totals = [sum(_num(v[i]) or 0.0 for _, v in stacks) for i in range(len(names))]
    x_max = _nice(max([*totals, 1e-9]))
    plot_w = W - LEFT - RIGHT
    key = "p" + hashlib.sha256(f"{unit}|{'|'.join(names)}".encode()).hexdigest()[:8]
    out = [_patterns(key), *_x_axis(TOP, plot_h, x_max, unit)]
    for i, name in enumerate(names):
        y = TOP + 4 + i * row_h
        out.append(_label(LEFT - 6, y + (row_h - 5) / 2 + 3, name))
        start = 0.0
        for k, (colour, (_, values)) in enumerate(zip(PALETTE, stacks, strict=False)):
            value = _num(values[i]) or 0.0
            box = (f'x="{LEFT + start / x_max * plot_w:.1f}" y="{y}" '
                   f'width="{value / x_max * plot_w:.1f}" height="{row_h - 5}"')  # fmt: skip
            out.append(f'<rect {box} fill="{colour}"/>')
            pattern = PATTERNS[k % len(PATTERNS)]
            if value and pattern != "solid":
                out.append(f'<rect {box} fill="url(#{key}-{pattern})"/>')
            start += value
    return _svg(out, TOP + plot_h + BOTTOM)


def _styled(names: Sequence[str], kinds: Sequence[str]) -> list[str]:
    """Legend names that say the non-colour cue too: 'Effective price (hatched)'."""
    styled = []
    for i, name in enumerate(names):
        kind = kinds[i % len(kinds)]
        styled.append(name if kind in ("solid", "") else f"{name} ({kind})")
    return styled


def _lines(curves: Sequence[Mapping[str, Any]]) -> str:
    """Goodput (%) against the checkpoint interval (minutes); a dot at each bid's chosen one,
    a ring at its optimum when the buyer's own interval was scored."""
    points = [(x, y) for c in curves for x, y in zip(c["x"], c["y"], strict=False)]
    if not points:
        return ""
    plot_h = H - TOP - BOTTOM
    x_max = _nice(max(x for x, _ in points))
    y_min, y_max = min(y for _, y in points), max(y for _, y in points)
    y_min, y_max = (y_min - 1, y_max + 1) if y_max == y_min else (y_min, y_max)
    plot_w = W - LEFT - RIGHT

    def px(x: float) -> float:
        return LEFT + x / x_max * plot_w

    def py(y: float) -> float:
        return TOP + plot_h - (y - y_min) / (y_max - y_min) * plot_h

    out = _x_axis(TOP, plot_h, x_max, "checkpoint interval (min)")
    for i in range(6):
        value = y_min + (y_max - y_min) * i / 5
        out.append(f'<text x="{LEFT - 6}" y="{py(value) + 3:.1f}" text-anchor="end">'
                   f"{percent(value, places=2)}</text>")  # fmt: skip
    for k, (colour, curve) in enumerate(zip(PALETTE, curves, strict=False)):
        dash = DASHES[k % len(DASHES)]
        coords = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in zip(curve["x"], curve["y"],
                                                                     strict=False))  # fmt: skip
        dashed = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(f'<polyline points="{coords}" fill="none" stroke="{colour}" '
                   f'stroke-width="1.4"{dashed}/>')  # fmt: skip
        chosen = curve.get("chosen") or []
        if len(chosen) == 2 and all(_num(v) is not None for v in chosen):
            out.append(f'<circle cx="{px(chosen[0]):.1f}" cy="{py(chosen[1]):.1f}" r="2.5" '
                       f'fill="{colour}"/>')  # fmt: skip
        optimum = curve.get("optimum") or []  # only when the buyer's own interval was scored
        if len(optimum) == 2 and all(_num(v) is not None for v in optimum):
            out.append(f'<circle cx="{px(optimum[0]):.1f}" cy="{py(optimum[1]):.1f}" r="2.5" '
                       f'fill="none" stroke="{colour}"/>')  # fmt: skip
    return _svg(out)


def _figure(svg: str, heading: str, legend: list[tuple[str, str]], caption: str) -> Block | None:
    if not svg:
        return None
    return {"type": "svg", "heading": heading, "svg": svg, "legend": legend, "dashed": "",
            "caption": caption}  # fmt: skip


def comparison_charts(charts: Mapping[str, Any]) -> list[Block]:
    """The four figures, each skipped when its data is empty (no qualified bid, no curve)."""
    names = [str(n) for n in charts.get("names") or []]
    if not names:
        return []
    scores = [(str(s["name"]), s["values"]) for s in charts.get("scores") or []]
    prices = charts.get("prices") or {}
    price_stacks = [("List price", prices.get("list") or []),
                    ("Effective price", prices.get("effective") or [])]  # fmt: skip
    price_rows = [f"{n} · {label}" for n in names for label in ("list", "effective")]
    interleaved = [
        (label, [v if j % 2 == k else 0 for j, v in enumerate(_pairs(price_stacks))])
        for k, (label, _) in enumerate(price_stacks)
    ]
    shares = charts.get("shares") or []
    figures = [
        _figure(_hbars(names, scores, "weighted score (0–100)"), "Weighted scores",
                list(zip(PALETTE, _styled([n for n, _ in scores], PATTERNS), strict=False)),
                "Each bid's total, split by criterion as weighted"),
        _figure(_hbars(price_rows, interleaved, "$ per GPU-hour"), "List and effective price",
                list(zip(PALETTE, _styled([n for n, _ in price_stacks], PATTERNS), strict=False)),
                "Effective price: the all-in price per useful GPU-hour, after goodput"),
        _figure(_lines(charts.get("curves") or []), "Goodput against checkpoint interval",
                list(zip(PALETTE, _styled([str(cv["name"]) for cv in charts.get("curves") or []],
                                          ["", "dashed", "dotted", "dash-dotted", "sparse dots"]),
                         strict=False)),
                "Goodput for each qualified bid; the dot is the interval scored (the buyer's, "
                "when given), the ring the bid's optimum when that differs"),
        _figure(_hbars([str(s["name"]) for s in shares],
                       [("share", [float(s["share"]) * 100 for s in shares])],
                       "share of random weight draws won (%)"),
                "Who wins as the weights move", [],
                "Share of the random weight draws each bid wins"),
    ]  # fmt: skip
    return [f for f in figures if f is not None]


def _pairs(stacks: Sequence[tuple[str, Sequence[Any]]]) -> list[float]:
    """List and effective price of each bid, one after the other."""
    listed, effective = stacks[0][1], stacks[1][1]
    out: list[float] = []
    for i in range(max(len(listed), len(effective))):
        out += [_num(listed[i] if i < len(listed) else None) or 0.0,
                _num(effective[i] if i < len(effective) else None) or 0.0]  # fmt: skip
    return out
