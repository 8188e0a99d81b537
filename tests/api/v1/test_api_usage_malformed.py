"""Malformed files through the API: a damaged XLSX, a DTD, `#DIV/0!`, `NaN` and a 5,000-digit
number are each a 400 that says which cell (sheet and cell, or line and column), never a 500
and never a reconciliation of what could be read. Every file is stored first: a file that
cannot be read at all is refused at upload with its stored row in the answer; a bill whose
reading (in the worker) found bad cells is refused when it is confirmed or retried."""

from __future__ import annotations

import bz2
import csv
import io
import zipfile
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from openpyxl import Workbook

from billing.models import UsageState, UsageUpload
from tests.api.v1.conftest import token_client
from tests.api.v1.tenancy_builders import USAGE_MAPPING
from tests.billing.conftest import DATA as SIMPLE_DATA
from tests.billing.conftest import contracted, media_root
from tests.engine.billing.test_bill_profiles import COLUMNS, DATA

pytestmark = pytest.mark.django_db
__all__ = ["contracted", "media_root"]

INVOICE = (DATA / "neocloud_invoice.csv").read_text()
# Line 4 of the invoice (its third data row); the rate is column I, the hours column G.
LINE, RATE, HOURS = 4, "Rate ($/GPU-hr)", "Hours"


def _post(client: Any, reservation: Any, name: str, data: bytes, capture: Any) -> Any:
    with capture(execute=True):
        return client.post(
            f"/api/v1/reservations/{reservation.pk}/usage/",
            {"file": SimpleUploadedFile(name, data)},
            format="multipart",
        )


def _invoice_csv(column: str, text: str) -> bytes:
    rows = list(csv.reader(io.StringIO(INVOICE)))
    rows[LINE - 1][rows[0].index(column)] = text
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue().encode()


def _invoice_xlsx(column: str = "", value: object = None) -> bytes:
    """The invoice as a workbook (sheet 'Invoice', header in row 1), one cell replaced; numbers
    written as numbers, as a spreadsheet keeps them."""
    rows = list(csv.reader(io.StringIO(INVOICE)))
    book = Workbook()
    sheet = book.active
    sheet.title = "Invoice"
    sheet.append(rows[0])
    for number, row in enumerate(rows[1:], start=2):
        cells: list[object] = [
            float(c) if c.replace(".", "", 1).isdigit() and "-" not in c else c for c in row
        ]
        if column and number == LINE:
            cells[rows[0].index(column)] = value
        sheet.append(cells)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _rewrite(data: bytes, part: str, old: bytes, new: bytes) -> bytes:
    """The same workbook with `old` replaced by `new` in one part's XML, as a broken or hostile
    exporter would write it (openpyxl itself never writes these)."""
    source, out = zipfile.ZipFile(io.BytesIO(data)), io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            body = source.read(info)
            if info.filename == part:
                assert old in body
                body = body.replace(old, new, 1)
            target.writestr(info.filename, body)
    return out.getvalue()


def _refused_at_upload(response: Any, *, name: str, says: str) -> dict[str, Any]:
    """A 400 with the reason, and the stored row (bytes kept, state error) in `upload`."""
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["detail"].startswith(f"{name} is stored (upload {body['upload']['id']})")
    assert says in body["detail"] and says in body["errors"]["file"][0]
    row = UsageUpload.objects.get(pk=body["upload"]["id"])
    assert row.state == UsageState.ERROR and says in row.error and row.size > 0
    return body


# Refused at upload: the file cannot be read at all.


def test_a_malformed_xlsx_is_a_400_at_upload_and_stays_stored(
    contracted, provider, django_capture_on_commit_callbacks
):
    client = token_client(provider.user)
    response = _post(
        client,
        contracted.reservation,
        "bill.xlsx",
        b"PK\x03\x04 cut short",
        django_capture_on_commit_callbacks,
    )
    body = _refused_at_upload(response, name="bill.xlsx", says="is not a readable XLSX workbook")
    listed = client.get(f"/api/v1/reservations/{contracted.reservation.pk}/usage/").json()
    assert [(r["id"], r["state"]) for r in listed["results"]] == [(body["upload"]["id"], "error")]


@pytest.mark.parametrize(
    ("name", "data", "says"),
    [
        # A gzipped export is read as the CSV inside (test_api_usage_bills); one whose bytes
        # cannot be unpacked says so.
        ("cur-00001.csv.gz", b"\x1f\x8b\x08\x00" + b"\xff" * 64, "is a gzip file that cannot be"),
        ("cur-00001.csv.bz2", bz2.compress(b"a,b\n1,2\n"), "is bzip2-compressed (.bz2): unpack"),
    ],
    ids=["damaged-gzip", "bzip2"],
)
def test_a_packed_export_that_cannot_be_read_is_a_400_that_says_why(
    name, data, says, contracted, provider, django_capture_on_commit_callbacks
):
    response = _post(
        token_client(provider.user),
        contracted.reservation,
        name,
        data,
        django_capture_on_commit_callbacks,
    )
    _refused_at_upload(response, name=name, says=says)


def test_a_damaged_sheet_is_a_400_naming_the_sheet_and_row(
    contracted, provider, django_capture_on_commit_callbacks
):
    data = _invoice_xlsx()
    sheet = zipfile.ZipFile(io.BytesIO(data)).read("xl/worksheets/sheet1.xml")
    cut = sheet[: sheet.index(b'<row r="3"') + 40]  # the XML stops inside row 3
    data = _rewrite(data, "xl/worksheets/sheet1.xml", sheet, cut)
    response = _post(
        token_client(provider.user),
        contracted.reservation,
        "bill.xlsx",
        data,
        django_capture_on_commit_callbacks,
    )
    _refused_at_upload(response, name="bill.xlsx", says="sheet 'Invoice', row 3")


def test_a_dtd_in_a_workbook_part_is_a_400_naming_the_part(
    contracted, provider, django_capture_on_commit_callbacks
):
    dtd = b'<?xml version="1.0"?><!DOCTYPE lol [<!ENTITY a "aaaaaaaa">]>'
    data = _invoice_xlsx()
    start = zipfile.ZipFile(io.BytesIO(data)).read("xl/workbook.xml")[:9]
    data = _rewrite(data, "xl/workbook.xml", start, dtd + start)
    response = _post(
        token_client(provider.user),
        contracted.reservation,
        "bill.xlsx",
        data,
        django_capture_on_commit_callbacks,
    )
    _refused_at_upload(response, name="bill.xlsx", says="part 'xl/workbook.xml' declares a DTD")


@pytest.mark.parametrize(
    ("bad", "says"),
    [
        (b"NaN", "sheet 'Invoice', cell I4: 'NaN'"),
        (b"9" * 5000, "sheet 'Invoice', cell I4: '99999999999999999999"),
    ],
)
def test_a_number_no_reader_can_hold_is_a_400_naming_its_cell(
    bad, says, contracted, provider, django_capture_on_commit_callbacks
):
    """`NaN` or 5,000 digits written as a cell's number (not as text): the workbook reader
    stops at it, so the file cannot be read at all; the answer names the cell, never echoes
    the 5,000 digits."""
    data = _rewrite(
        _invoice_xlsx(RATE, 7.77),
        "xl/worksheets/sheet1.xml",
        b"<v>7.77</v>",
        b"<v>" + bad + b"</v>",
    )
    response = _post(
        token_client(provider.user),
        contracted.reservation,
        "bill.xlsx",
        data,
        django_capture_on_commit_callbacks,
    )
    body = _refused_at_upload(response, name="bill.xlsx", says=says)
    assert len(body["detail"]) < 500


# Stored and read by the worker, which lists every bad cell; confirming is refused.


def _confirm_refused(client: Any, reservation: Any, upload_id: int, capture: Any) -> dict:
    base = f"/api/v1/reservations/{reservation.pk}/usage/{upload_id}/"
    inspection = client.get(base + "mapping/").json()["inspection"]
    assert inspection["profile"] == "neocloud" and inspection["errors"]
    body = {"profile": "neocloud", "columns": inspection["columns"]}
    with capture(execute=True):
        response = client.put(base + "mapping/", body, format="json")
    assert response.status_code == 400, response.content
    refused = response.json()
    assert refused["detail"].startswith("Cannot confirm this mapping: 1 cell(s) of ")
    detail = client.get(base).json()
    assert detail["state"] == "mapping" and detail["totals"] in ({}, None)
    return refused


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("#DIV/0!", "'#DIV/0!' is a spreadsheet error"),
        ("NaN", "'NaN' is not a finite number"),
        ("9" * 5000, "5000 digits"),
    ],
)
def test_a_bad_cell_in_a_csv_bill_is_a_400_naming_its_line_and_column_when_confirmed(
    text, says, contracted, provider, django_capture_on_commit_callbacks
):
    client, capture = token_client(provider.user), django_capture_on_commit_callbacks
    response = _post(
        client, contracted.reservation, "invoice.csv", _invoice_csv(RATE, text), capture
    )
    assert response.status_code == 201  # stored; the worker reads it whole
    refused = _confirm_refused(client, contracted.reservation, response.json()["id"], capture)
    [cell] = refused["errors"]["cells"]
    assert cell.startswith(f"line {LINE}, column '{RATE}': ") and says in cell
    assert len(cell) < 300  # 5,000 digits are not echoed back


def test_an_error_value_in_an_xlsx_bill_is_a_400_naming_its_sheet_and_cell_when_confirmed(
    contracted, provider, django_capture_on_commit_callbacks
):
    client, capture = token_client(provider.user), django_capture_on_commit_callbacks
    data = _invoice_xlsx(RATE, "#DIV/0!")  # written as Excel writes an error value
    assert b't="e"' in zipfile.ZipFile(io.BytesIO(data)).read("xl/worksheets/sheet1.xml")
    response = _post(client, contracted.reservation, "invoice.xlsx", data, capture)
    assert response.status_code == 201
    refused = _confirm_refused(client, contracted.reservation, response.json()["id"], capture)
    [cell] = refused["errors"]["cells"]
    assert cell.startswith(f"sheet 'Invoice', cell I{LINE}")
    assert "'#DIV/0!' is a spreadsheet error" in cell


def test_a_bill_confirmed_before_it_was_read_fails_naming_the_cell_and_retry_is_a_409(
    contracted, provider, django_capture_on_commit_callbacks
):
    """Confirmed while the worker had not read it yet: the reconciliation reads it, finds the
    cell and fails saying so; Retry (the same file, the same settings) is refused by the file's
    state (409, nothing the call sent is wrong), listing it."""
    client, capture = token_client(provider.user), django_capture_on_commit_callbacks
    response = client.post(
        f"/api/v1/reservations/{contracted.reservation.pk}/usage/",
        {"file": SimpleUploadedFile("invoice.csv", _invoice_csv(HOURS, "NaN"))},
        format="multipart",
    )  # the reading is queued, not run
    assert response.status_code == 201
    base = f"/api/v1/reservations/{contracted.reservation.pk}/usage/{response.json()['id']}/"
    body = {"profile": "neocloud", "columns": COLUMNS["neocloud_invoice.csv"]}
    with capture(execute=True):
        assert client.put(base + "mapping/", body, format="json").status_code == 202
    detail = client.get(base).json()
    assert detail["state"] == "error"
    assert "1 cell(s) cannot be read" in detail["error"] and f"line {LINE}" in detail["error"]
    with capture(execute=True):
        retried = client.post(base + "retry/")
    assert retried.status_code == 409
    assert retried.json()["detail"].startswith("Cannot reconcile: 1 cell(s) of invoice.csv")
    [cell] = retried.json()["errors"]["cells"]
    assert cell.startswith(f"line {LINE}, column '{HOURS}': 'NaN'")
    assert client.get(base).json()["state"] == "error"
    # The page says the same and offers no Retry that would fail.
    detail_url = reverse("billing:usage-detail", args=[response.json()["id"]])
    page = provider.client().get(detail_url).content.decode()
    assert 'id="usage-bad-cells"' in page and 'id="usage-retry"' not in page


# Our own simple column layout: the first rows are checked against the mapping when it is set.


def test_a_bad_cell_in_the_first_rows_of_a_simple_file_is_a_400_naming_it(
    contracted, provider, django_capture_on_commit_callbacks
):
    client, capture = token_client(provider.user), django_capture_on_commit_callbacks
    text = (SIMPLE_DATA / "usage_planted.csv").read_text().splitlines()
    text[2] = text[2].replace(",2.50,", ",NaN,", 1)
    response = _post(client, contracted.reservation, "usage.csv", "\n".join(text).encode(), capture)
    assert response.status_code == 201 and response.json()["state"] == "mapping"
    base = f"/api/v1/reservations/{contracted.reservation.pk}/usage/{response.json()['id']}/"
    with capture(execute=True):
        refused = client.put(base + "mapping/", USAGE_MAPPING, format="json")
    assert refused.status_code == 400
    assert refused.json()["errors"]["cells"] == [
        "line 3, column 'rate_usd': 'NaN' is not a number."
    ]
    assert client.get(base).json()["state"] == "mapping"
