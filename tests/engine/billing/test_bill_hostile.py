"""Hostile and broken workbooks: refused before any reader runs, or read to a specific error
that names the sheet and cell; never an unhandled exception, never hundreds of MB."""

from __future__ import annotations

import io
import struct
import time
import tracemalloc
import zipfile
import zlib

import pytest
from openpyxl import Workbook

from engine.billing import UsageError
from engine.billing.bill import read_bill
from engine.billing.guard import MAX_PARTS, check_xlsx

HEADER = ["Hostname", "Instance type", "Start", "End", "Hours", "GPUs", "Rate", "Amount"]
ROW = ["node-a", "8x H100", "2026-03-01T06:00:00Z", "2026-03-01T07:00:00Z", 1, 8, 2.5, 20]


def _workbook(*rows: list[object]) -> bytes:
    book = Workbook()
    sheet = book.active
    sheet.title = "Usage"
    sheet.append(HEADER)
    for row in rows:
        sheet.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _rewrite(data: bytes, part: str, change) -> bytes:
    """The same workbook with one part's XML changed."""
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            body = source.read(info)
            target.writestr(info.filename, change(body) if info.filename == part else body)
    return out.getvalue()


def _zip(parts: list[tuple[str, bytes, int, int]]) -> bytes:
    """A zip of already-deflated parts: (name, deflated bytes, CRC-32, uncompressed size)."""
    out, central = io.BytesIO(), io.BytesIO()
    for name, body, crc, size in parts:
        offset, raw = out.tell(), name.encode()
        fields = (20, 0, 8, 0, 0x21, crc, len(body), size, len(raw), 0)
        out.write(struct.pack("<I5H3I2H", 0x04034B50, *fields) + raw + body)
        central.write(struct.pack("<I6H3I5H2I", 0x02014B50, 20, *fields, 0, 0, 0, 0, offset))
        central.write(raw)
    start = out.tell()
    out.write(central.getvalue())
    size = len(central.getvalue())
    out.write(struct.pack("<I4H2IH", 0x06054B50, 0, 0, len(parts), len(parts), size, start, 0))
    return out.getvalue()


def _deflated(*pieces: tuple[bytes, int]) -> tuple[bytes, int, int]:
    """Each (bytes, times) deflated once and repeated: after a full flush the compressor keeps
    no history, so the same input deflates to the same bytes, and 400 MB cost one MB's work."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    body, crc, size = b"", 0, 0
    for piece, times in pieces:
        once = packer.compress(piece) + packer.flush(zlib.Z_FULL_FLUSH)
        body += once * times
        for _ in range(times):
            crc = zlib.crc32(piece, crc)
        size += len(piece) * times
    return body + packer.flush(), crc, size


@pytest.fixture(scope="module")
def bomb() -> bytes:
    """~420 KB of XLSX whose shared strings unpack to ~400 MB of real, valid deflate."""
    chunk = b"<si><t>" + b"A" * (1 << 20) + b"</t></si>"
    strings = _deflated((b'<?xml version="1.0"?><sst>', 1), (chunk, 400), (b"</sst>", 1))
    return _zip(
        [
            ("[Content_Types].xml", *_deflated((b"<Types/>", 1))),
            ("xl/workbook.xml", *_deflated((b"<workbook/>", 1))),
            ("xl/sharedStrings.xml", *strings),
        ]
    )


def test_the_bomb_is_a_real_zip(bomb):
    (info,) = [i for i in zipfile.ZipFile(io.BytesIO(bomb)).infolist() if "shared" in i.filename]
    assert info.file_size > 400 * 2**20 and len(bomb) < 500_000
    with zipfile.ZipFile(io.BytesIO(bomb)).open(info) as part:
        assert part.read(64).startswith(b'<?xml version="1.0"?><sst><si><t>AAAA')


def test_a_shared_strings_bomb_is_refused_fast_and_small(bomb):
    tracemalloc.start()
    began = time.perf_counter()
    with pytest.raises(UsageError) as caught:
        read_bill(bomb, name="bill.xlsx")
    took = time.perf_counter() - began
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert took < 2.0 and peak < 200 * 2**20
    assert "bill.xlsx is refused" in str(caught.value)
    assert "sharedStrings.xml" in str(caught.value) or "MB" in str(caught.value)


def test_too_many_parts_are_refused():
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
        for n in range(MAX_PARTS + 1):
            archive.writestr(f"xl/media/{n}.bin", b"")
    with pytest.raises(UsageError, match="parts"):
        check_xlsx(out.getvalue())


def test_a_dtd_in_any_part_is_refused():
    entity = b'<?xml version="1.0"?><!DOCTYPE lol [<!ENTITY a "aaaaaaaa">]>'
    data = _rewrite(
        _workbook(ROW), "xl/workbook.xml", lambda body: entity + body.split(b"?>", 1)[-1]
    )
    with pytest.raises(UsageError, match=r"part 'xl/workbook.xml' declares a DTD"):
        read_bill(data)


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (b"PK\x03\x04 this is no zip at all", "not a readable XLSX workbook"),
        (b"", "is empty"),
        (b"\x00\x01\x02 binary", "not a CSV or XLSX"),
    ],
)
def test_broken_files_say_what_they_are(data, says):
    with pytest.raises(UsageError, match=says):
        read_bill(data, name="bill.xlsx")


def test_a_zip_that_is_not_a_workbook_says_so():
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("usage.csv", "a,b\n")
    with pytest.raises(UsageError, match=r"zip but not an XLSX workbook"):
        read_bill(out.getvalue())


def test_a_damaged_sheet_names_the_sheet_and_row():
    data = _rewrite(
        _workbook(ROW, ROW), "xl/worksheets/sheet1.xml", lambda body: body[: len(body) - 120]
    )
    with pytest.raises(UsageError) as caught:
        read_bill(data)
    assert "sheet 'Usage'" in str(caught.value)


def test_error_values_nan_and_huge_numbers_name_their_cells():
    data = _workbook(
        ROW,
        [*ROW[:6], "#DIV/0!", 20],
        [*ROW[:4], 12345.5, *ROW[5:]],
    )
    data = _rewrite(
        data,
        "xl/worksheets/sheet1.xml",
        lambda body: body.replace(b"<v>12345.5</v>", b"<v>" + b"9" * 5000 + b".5</v>"),
    )
    bill = read_bill(data)
    assert len(bill.lines) == 1
    where = [(e.cell, e.column) for e in bill.errors]
    assert where == [("sheet 'Usage', cell G3", "Rate"), ("sheet 'Usage', cell E4", "Hours")]
    messages = [str(e) for e in bill.errors]
    assert "'#DIV/0!' is a spreadsheet error" in messages[0]
    assert "'inf' is not a finite number" in messages[1]  # 5,000 digits with a fraction


@pytest.mark.parametrize("bad", [b"NaN", b"9" * 5000])
def test_a_number_cell_openpyxl_cannot_parse_is_named(bad):
    data = _rewrite(
        _workbook(ROW, [*ROW[:7], 777]),
        "xl/worksheets/sheet1.xml",
        lambda body: body.replace(b"<v>777</v>", b"<v>" + bad + b"</v>"),
    )
    with pytest.raises(UsageError) as caught:
        read_bill(data)
    assert str(caught.value).startswith(f"sheet 'Usage', cell H3: '{bad[:20].decode()}")


def test_a_5000_digit_number_in_a_csv_names_its_line_and_column():
    text = ",".join(HEADER) + "\n" + ",".join(str(c) for c in ROW[:6]) + f",{'9' * 5000},20\n"
    (error,) = read_bill(text.encode()).errors
    assert (error.line, error.column) == (2, "Rate") and "5000 digits" in str(error)


def test_cell_text_is_capped():
    data = _workbook([*ROW[:7], "x" * 40_000])
    with pytest.raises(UsageError) as caught:
        read_bill(data)
    assert "sheet 'Usage', cell H2" in str(caught.value) and "characters" in str(caught.value)


def test_csv_cell_text_is_capped():
    text = ",".join(HEADER) + "\n" + ",".join(str(c) for c in ROW[:7]) + "," + "x" * 40_000
    with pytest.raises(UsageError, match=r"line 2, column '#8': a cell holds 40,000 characters"):
        read_bill(text.encode())
