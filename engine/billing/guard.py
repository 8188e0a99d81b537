"""Checks an XLSX archive before any workbook reader opens it.

An XLSX is a zip of XML parts, and a reader trusts it: openpyxl loads the whole shared-strings
part into memory on open, so 400 KB of deflated repeats can ask for 400 MB, and an XML part with
a DTD can declare entities that expand. The zip's central directory states every part's
uncompressed size, and Python's zip reader never returns more than that size, so checking the
declared sizes, ratios and part count here bounds what any reader can be made to allocate.
"""

from __future__ import annotations

import io
import zipfile
import zlib

from engine.billing.errors import UsageError

MAX_TOTAL = 100 * 1024 * 1024  # uncompressed bytes, all parts: a year of hourly lines is ~30 MB
MAX_SHARED_STRINGS = 64 * 1024 * 1024
MAX_PARTS = 10_000  # a workbook has tens of parts; thousands means something built it to hurt
MAX_RATIO = 100  # uncompressed : compressed, for parts above RATIO_FROM
RATIO_FROM = 1024 * 1024  # small parts (styles, empty sheets) compress far better, harmlessly
# A bill's longest cells (tags, JSON price details) are a few KB; Excel's own limit is 32,767.
MAX_CELL_TEXT = 10_000
_HEAD = 64 * 1024  # where an XML prolog, and so any DTD, must be
_REQUIRED = ("[Content_Types].xml", "xl/workbook.xml")


def _refuse(name: str, why: str) -> UsageError:
    return UsageError(f"{name or 'The file'} is refused: {why}")


def _sizes(infos: list[zipfile.ZipInfo], name: str) -> None:
    if len(infos) > MAX_PARTS:
        raise _refuse(name, f"the workbook has {len(infos):,} parts (at most {MAX_PARTS:,}).")
    total = 0
    for info in infos:
        size = info.file_size
        total += size
        if total > MAX_TOTAL:
            raise _refuse(
                name, f"it unpacks to more than {MAX_TOTAL // 2**20} MB (a usage file needs less)."
            )
        if size > RATIO_FROM and size > MAX_RATIO * max(info.compress_size, 1):
            ratio = size // max(info.compress_size, 1)
            raise _refuse(
                name,
                f"part '{info.filename}' expands {ratio:,} to 1 (at most {MAX_RATIO} to 1 is "
                "accepted): this looks like a zip bomb.",
            )
        if info.filename.lower().endswith("sharedstrings.xml") and size > MAX_SHARED_STRINGS:
            raise _refuse(
                name,
                f"its shared strings take {size // 2**20} MB "
                f"(at most {MAX_SHARED_STRINGS // 2**20} MB).",
            )


def _no_dtd(archive: zipfile.ZipFile, infos: list[zipfile.ZipInfo], name: str) -> None:
    """No XML part may carry a DTD: a workbook never needs one, and entities are how XML bombs
    and external-entity reads work."""
    for info in infos:
        if not info.filename.lower().endswith((".xml", ".rels", ".vml")):
            continue
        with archive.open(info) as part:
            head = part.read(_HEAD)
        if b"<!DOCTYPE" in head or b"<!ENTITY" in head:
            raise _refuse(
                name, f"part '{info.filename}' declares a DTD, which a workbook never needs."
            )


def check_xlsx(data: bytes, *, name: str = "") -> None:
    """Refuse a workbook whose archive is damaged, oversized, over-compressed, has too many
    parts or a DTD; say which limit and which part. Runs in milliseconds: it reads the zip's
    directory and the first 64 KB of each XML part, never a whole part."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError) as exc:
        raise UsageError(f"{name or 'The file'} is not a readable XLSX workbook ({exc}).") from None
    with archive:
        infos = archive.infolist()
        _sizes(infos, name)
        present = {info.filename for info in infos}
        missing = [part for part in _REQUIRED if part not in present]
        if missing:
            raise UsageError(
                f"{name or 'The file'} is a zip but not an XLSX workbook (it has no "
                f"{', '.join(missing)}); save it from the spreadsheet as .xlsx or as CSV."
            )
        try:
            _no_dtd(archive, infos, name)
        except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError) as exc:
            raise UsageError(f"{name or 'The file'} is a damaged XLSX workbook ({exc}).") from None
