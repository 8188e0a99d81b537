"""The comparison summary PDF carries the page's four charts, drawn as vectors."""

from __future__ import annotations

import io
import re

from pypdf import PdfReader

from annexes.document.comparison_charts import comparison_charts
from annexes.models import AnnexKind
from tests.annexes.test_annex_render import _generate, _text

FIGURES = [
    "Weighted scores",
    "List and effective price",
    "Goodput against checkpoint interval",
    "Who wins as the weights move",
]


def test_the_summary_pdf_draws_the_four_charts_as_vectors(
    awarded, buyer, django_capture_on_commit_callbacks
):
    from evaluation.services import request_score

    request_score(capacity_request=awarded.request)
    annex = _generate(
        awarded.request,
        buyer.user,
        AnnexKind.COMPARISON,
        capture=django_capture_on_commit_callbacks,
    ).annex
    assert [f["heading"] for f in comparison_charts(annex.snapshot["charts"])] == FIGURES
    text = " ".join(_text(annex).split())
    section = text.split("Charts", 2)[-1]
    for heading in FIGURES:
        assert heading in section, heading
    with annex.pdf.open("rb") as fh:
        reader = PdfReader(io.BytesIO(fh.read()))
    assert not any(page.images for page in reader.pages)  # vectors, not pictures


def test_provider_names_are_text_in_the_svg_never_markup():
    charts = {
        "names": ['<script>alert(1)</script> & "Co"', "Plain"],
        "scores": [{"name": "Effective cost", "values": [40.0, 30.0]}],
        "prices": {"list": [2.4, 2.9], "effective": [2.7, 3.1]},
        "curves": [],
        "shares": [{"name": "Plain", "share": 0.7}],
    }
    figures = comparison_charts(charts)
    assert [f["heading"] for f in figures] == [FIGURES[0], FIGURES[1], FIGURES[3]]  # no curves
    svg = figures[0]["svg"]
    assert "<script>" not in svg and "&lt;script&gt;" in svg and "&amp;" in svg


def test_the_goodput_figure_rings_the_optimum_when_the_buyers_interval_was_scored():
    curve = {"name": "Plain", "x": [6.0, 60.0, 600.0], "y": [90.0, 98.0, 95.0]}
    charts = {
        "names": ["Plain"],
        "scores": [{"name": "Effective cost", "values": [40.0]}],
        "prices": {"list": [2.4], "effective": [2.7]},
        "shares": [],
    }
    scored_at_optimum = comparison_charts({**charts, "curves": [{**curve, "chosen": [60, 98]}]})
    buyers = comparison_charts(
        {**charts, "curves": [{**curve, "chosen": [60, 98], "optimum": [244.9, 98.9]}]}
    )
    [at_optimum] = [f["svg"] for f in scored_at_optimum if f["heading"] == FIGURES[2]]
    [at_buyers] = [f["svg"] for f in buyers if f["heading"] == FIGURES[2]]
    ring = re.compile(r'<circle[^>]*fill="none"')
    assert at_optimum.count("<circle") == 1 and not ring.search(at_optimum)
    assert at_buyers.count("<circle") == 2 and len(ring.findall(at_buyers)) == 1


def test_long_labels_wrap_instead_of_being_cut_and_series_differ_by_more_than_colour():
    """GIVEN a provider name longer than the label column THEN its list and effective rows
    keep their last words (the two bars of one provider are told apart by text), the second
    price series is hatched, and the legend says which is which without colour."""
    long_name = "Pacifica Neocloud Hillsboro Region"
    charts = {
        "names": [long_name],
        "scores": [{"name": "Effective cost", "values": [40.0]},
                   {"name": "Delivery risk", "values": [20.0]}],
        "prices": {"list": [2.4], "effective": [3.1]},
        "curves": [],
        "shares": [],
    }  # fmt: skip
    figures = {f["heading"]: f for f in comparison_charts(charts)}
    scores, prices = figures["Weighted scores"], figures["List and effective price"]
    assert "list</tspan>" in prices["svg"] and "effective</tspan>" in prices["svg"]
    assert re.search(r'fill="url\(#p[0-9a-f]{8}-hatched\)"', prices["svg"])
    assert [name for _, name in prices["legend"]] == ["List price", "Effective price (hatched)"]
    assert [name for _, name in scores["legend"]] == ["Effective cost", "Delivery risk (hatched)"]
    assert long_name[:28] + "</tspan>" not in prices["svg"]  # not cut at 28 characters
