"""Vector charts for the PDF annex, drawn as plain SVG (WeasyPrint keeps them as vectors)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from engine.domain import series_colours
from engine.formatting import data_size


def chart_legend(series: Mapping[str, Sequence[tuple[float, float]]]) -> list[tuple[str, str]]:
    """(colour, name) per line of `busbw_chart_svg`, in the order it draws them.

    The legend prints as text beside the chart rather than inside it: WeasyPrint lays out each
    SVG text element on its own, which made the legend the dearest part of the chart.
    """
    colours = series_colours(names=sorted(series))
    return [(colour, name) for name, colour in colours.items()]


def busbw_chart_svg(
    series: Mapping[str, Sequence[tuple[float, float]]],
    *,
    thresholds: Mapping[str, float] | None = None,
    width: int = 640,
    height: int = 300,
) -> str:
    """Bus bandwidth (GB/s) against message size (bytes, log2 axis), one line per collective.

    Dashed lines mark each collective's agreed threshold. Returns an `<svg>` element; its legend
    is `chart_legend(series)`.
    """
    points = [(s, b) for rows in series.values() for s, b in rows if s > 0]
    if not points:
        return ""
    thresholds = thresholds or {}
    left, right, top, bottom = 56, 16, 16, 40
    plot_w, plot_h = width - left - right, height - top - bottom
    x_min = math.log2(min(s for s, _ in points))
    x_max = math.log2(max(s for s, _ in points))
    if x_max == x_min:
        x_max = x_min + 1
    y_max = max([b for _, b in points] + list(thresholds.values()) + [1.0]) * 1.1

    def x(size: float) -> float:
        return left + (math.log2(size) - x_min) / (x_max - x_min) * plot_w

    def y(value: float) -> float:
        return top + plot_h - value / y_max * plot_h

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, sans-serif" font-size="10">',
        f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" '
        'fill="none" stroke="#999"/>',
    ]
    for i in range(6):
        value = y_max * i / 5
        out.append(
            f'<line x1="{left}" x2="{left + plot_w}" y1="{y(value):.1f}" y2="{y(value):.1f}" '
            'stroke="#e5e5e5"/>'
            f'<text x="{left - 6}" y="{y(value) + 3:.1f}" text-anchor="end">{value:.0f}</text>'
        )
    step = max(1, round((x_max - x_min) / 8))
    exp = math.ceil(x_min)
    while exp <= x_max:
        px = x(2**exp)
        out.append(
            f'<text x="{px:.1f}" y="{top + plot_h + 14}" text-anchor="middle">'
            f"{data_size(2**exp)}</text>"
        )
        exp += step
    out.append(
        f'<text x="{left + plot_w / 2}" y="{height - 6}" text-anchor="middle">'
        "message size (bytes)</text>"
        f'<text x="12" y="{top + plot_h / 2}" text-anchor="middle" '
        f'transform="rotate(-90 12 {top + plot_h / 2})">bus bandwidth (GB/s)</text>'
    )
    for colour, name in chart_legend(series):
        rows = series[name]
        coords = " ".join(f"{x(s):.1f},{y(b):.1f}" for s, b in sorted(rows) if s > 0)
        out.append(
            f'<polyline points="{coords}" fill="none" stroke="{colour}" stroke-width="1.6"/>'
        )
        if name in thresholds:
            ty = y(thresholds[name])
            out.append(
                f'<line x1="{left}" x2="{left + plot_w}" y1="{ty:.1f}" y2="{ty:.1f}" '
                f'stroke="{colour}" stroke-dasharray="4 3"/>'
            )
    out.append("</svg>")
    return "".join(out)
