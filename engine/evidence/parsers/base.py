"""Shared pieces for the evidence parsers: errors, text decoding, line prefixes, JSON export.

Nothing here imports Django: parsers run in workers, the CLI and tests alike.
"""

from __future__ import annotations

import dataclasses
import math
import re
from typing import Any

from engine.packed import PackedError, gunzipped


class ParseError(ValueError):
    """A file that cannot be read as the evidence kind it claims (or was detected) to be."""

    def __init__(self, message: str, *, line: int | None = None, kind: str | None = None) -> None:
        self.message = message
        self.line = line
        self.kind = kind
        super().__init__(self.__str__())

    def __str__(self) -> str:
        prefix = f"line {self.line}: " if self.line is not None else ""
        return f"{prefix}{self.message}"


class UnrecognisedEvidence(ParseError):
    """No parser recognises the text."""


class BinaryEvidence(ParseError):
    """The upload is binary (NUL bytes or mostly undecodable), not a tool's text output."""


class NcclTestsError(ParseError):
    """nccl-tests output (text or -J JSON) that cannot be read."""


class TopoError(ParseError):
    """nvidia-smi topo -m output that cannot be read."""


class GpuQueryError(ParseError):
    """nvidia-smi query CSV / table / -q output that cannot be read."""


class DmonError(ParseError):
    """nvidia-smi dmon output that cannot be read."""


class DcgmiError(ParseError):
    """dcgmi diag output (table or JSON) that cannot be read."""


class IbstatError(ParseError):
    """ibstat / ibstatus output that cannot be read."""


class PerfqueryError(ParseError):
    """perfquery port counter output that cannot be read."""


class IbqueryerrorsError(ParseError):
    """ibqueryerrors output that cannot be read."""


class NvbandwidthError(ParseError):
    """nvbandwidth output (text or -j JSON) that cannot be read."""


class PerftestError(ParseError):
    """perftest (ib_write_bw, ib_write_lat, ...) output that cannot be read."""


class StepTimesError(ParseError):
    """A per-rank step-time CSV that cannot be read."""


class FixtureResultError(ParseError):
    """The fixture script's JSON lines that cannot be read."""


# What is not text: control characters other than tab, newline, carriage return, form feed and
# escape (colour codes), and U+FFFD (what undecodable bytes become). One regex scan in C, not a
# Python loop over every character (that loop was half of nccl-tests parsing).
_NOT_TEXT_RE = re.compile("[\x00-\x08\x0b\x0e-\x1a\x1c-\x1f\ufffd]")
_ANSI_RE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


# Plain ASCII text: printable characters and the tolerated controls above.
_TEXT_BYTES = bytes(range(32, 127)) + b"\t\n\r\f\x1b\x7f"


def _not_text_count(data: str | bytes, sample: str) -> int:
    raw = data[:65536] if isinstance(data, bytes | bytearray) else b""
    if raw and raw.isascii():
        # ASCII decodes one byte to one character, so deleting the good bytes (in C) counts
        # the bad characters of the sample without a scan of the decoded text.
        return len(bytes(raw).translate(None, _TEXT_BYTES))
    return len(_NOT_TEXT_RE.findall(sample))


def unpacked(
    data: bytes, *, error: type[ParseError] | None = None, kind: str | None = None
) -> bytes:
    """The bytes of a gzipped upload (`nccl.log.gz`, as `gzip` or `curl --data-binary @…gz`
    send it) unpacked, up to `engine.packed.MAX_UNPACKED`; any other bytes as they are."""
    try:
        return gunzipped(data)
    except PackedError as exc:
        message = str(exc)
        if exc.too_large:
            message += ": upload fewer results per file"
        raise (error or BinaryEvidence)(message, kind=kind) from None


def _from_utf16(data: bytes) -> bytes:
    """Output saved by Windows PowerShell's '>' is UTF-16 with a byte-order mark: re-encode it
    as UTF-8 (anything else, NUL bytes included, is left for the binary check)."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff") and len(data) % 2 == 0:
        try:
            return data.decode("utf-16").encode("utf-8")
        except UnicodeDecodeError:
            return data
    return data


def decode_text(
    data: str | bytes, *, kind: str | None = None, error: type[ParseError] | None = None
) -> str:
    """Decode an upload to text with normalised newlines.

    Binary content raises `error` (the calling parser's own class) or BinaryEvidence.
    """
    fail = error or BinaryEvidence
    if isinstance(data, bytes | bytearray):
        data = _from_utf16(unpacked(bytes(data), error=fail, kind=kind))
        nul = data.find(b"\x00")
        if nul != -1:
            raise fail(
                f"binary file: NUL byte at offset {nul}; expected a tool's text output", kind=kind
            )
        text = bytes(data).decode("utf-8", errors="replace")
    else:
        text = data
        if "\x00" in text:
            raise fail(f"binary file: NUL character at offset {text.index(chr(0))}", kind=kind)
    text = text.removeprefix("\ufeff")
    if text:
        sample = text[:65536]
        bad = _not_text_count(data, sample)
        # A few stray bytes are tolerable in a log; a tenth of the sample is not text.
        if bad > 8 and bad * 10 > len(sample):
            raise fail(
                f"binary file: {bad} of the first {len(sample)} characters are not text",
                kind=kind,
            )
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def strip_ansi(line: str) -> str:
    return _ANSI_RE.sub("", line) if "\x1b" in line else line


# srun -l labels (" 0: ", "640: ", bare " 0:") and mpirun --tag-output ("[1,0]<stdout>:").
_PREFIX_RE = re.compile(r"^(?:\s*(\d{1,6}):(?: |$)|\[(\d+),(\d+)\]<std(?:out|err)>:\s?)")


# `kubectl logs --timestamps` (RFC 3339, nanoseconds) and similar collectors stamp every line.
_LINE_STAMP_RE = re.compile(
    r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d) ", re.M
)


def strip_line_timestamps(text: str) -> str:
    """Take a log collector's timestamp off every line, when nearly every line carries one
    (so a file whose content merely holds some timestamps is left alone). Lines keep their
    numbers."""
    if not _LINE_STAMP_RE.match(text[:200].lstrip()):
        return text  # the collector stamps the first line too: most files stop here, at once
    head = text.split("\n", 2000)[:2000]
    lines = sum(1 for ln in head if ln.strip())
    stamped = sum(1 for ln in head if _LINE_STAMP_RE.match(ln))
    if lines == 0 or stamped * 10 < lines * 9:
        return text
    return _LINE_STAMP_RE.sub("", text)


def split_prefix(line: str) -> tuple[str | None, str]:
    """Return (launcher label, rest of the line) for srun -l / mpirun --tag-output lines."""
    if not line or (line[0] not in " [" and not line[0].isdigit()):
        return None, line
    m = _PREFIX_RE.match(line)
    if m is None:
        return None, line
    label = m.group(1) if m.group(1) is not None else m.group(3)
    return label, line[m.end() :]


def parse_number(token: str) -> int | float | None:
    """Parse '400', '2.5', '1e+03'; None for N/A-style values."""
    try:
        return int(token)
    except ValueError:
        pass
    try:
        value = float(token)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def number_problem(exc: ValueError | OverflowError) -> str:
    """Say why int()/float() refused a token that looked numeric (for an error naming the line)."""
    text = str(exc)
    if "digits" in text and "limit" in text:
        return "a number has too many digits to be a real value"
    return f"a number cannot be read ({text[:80]})"


def to_jsonable(value: Any) -> Any:
    """Convert parser dataclasses (tuples, nested dataclasses, non-finite floats) to JSON types."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {}
        for field in dataclasses.fields(value):
            if field.metadata.get("json") is False:
                continue
            out[field.name] = to_jsonable(getattr(value, field.name))
        return out
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def percentile(sorted_values: list[float], pct: float) -> float:
    """Nearest-rank percentile of an already sorted, non-empty list."""
    rank = math.ceil(pct / 100.0 * len(sorted_values))
    return sorted_values[min(max(rank, 1), len(sorted_values)) - 1]


def median(sorted_values: list[float]) -> float:
    n = len(sorted_values)
    mid = n // 2
    if n % 2:
        return sorted_values[mid]
    return (sorted_values[mid - 1] + sorted_values[mid]) / 2.0
