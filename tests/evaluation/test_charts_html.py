"""The charts' figures as tables: the page's text alternative to each chart."""

from __future__ import annotations

from evaluation.charts_html import chart_table

CHARTS = {
    "names": ["<b>Evil</b> & Co", "Rival Cloud (disqualified)"],
    "scores": [{"name": "Effective cost", "values": [31.5, 12.25]}],
    "prices": {"list": [2.1, None], "effective": [2.456, 3.0]},
    "curves": [
        {"name": "<b>Evil</b> & Co", "chosen": [60.0, 97.125], "optimum": None},
        {"name": "Rival Cloud", "chosen": [60.0, 96.5], "optimum": [42.5, 96.9]},
    ],
    "shares": [{"name": "<b>Evil</b> & Co", "share": 0.612}],
}
EVIL = "<td>&lt;b&gt;Evil&lt;/b&gt; &amp; Co</td>"


def test_each_bid_has_a_row_with_its_figures_and_every_name_is_escaped():
    scores = chart_table(CHARTS, "scores")
    assert scores.startswith('<table class="table compact"><thead><tr><th>Bid</th>')
    assert "<th>Effective cost</th>" in scores
    assert f"<tr>{EVIL}<td>31.5</td></tr>" in scores
    assert "<tr><td>Rival Cloud (disqualified)</td><td>12.25</td></tr>" in scores
    assert "<b>" not in scores + chart_table(CHARTS, "curves") + chart_table(CHARTS, "shares")


def test_a_missing_price_reads_as_a_dash():
    prices = chart_table(CHARTS, "prices")
    assert "<th>Effective ($/useful GPU-h)</th>" in prices
    assert "<td>Rival Cloud (disqualified)</td><td>—</td><td>3.0</td>" in prices


def test_a_curve_scored_at_its_optimum_says_so():
    curves = chart_table(CHARTS, "curves")
    assert f"<tr>{EVIL}<td>60.0</td><td>97.125</td><td>the same</td><td>—</td></tr>" in curves
    assert "<td>Rival Cloud</td><td>60.0</td><td>96.5</td><td>42.5</td><td>96.9</td>" in curves


def test_the_share_of_draws_reads_as_a_percentage():
    assert f"<tr>{EVIL}<td>61.2 %</td></tr>" in chart_table(CHARTS, "shares")
