"""Timestamps in the logs' own formats, returned as aware UTC datetimes (or None).

Formats: ISO 8601 (`T` or space or `_`, `.`/`,` fractions, `Z`/offsets — also inside `[...]` and
Python logging prefixes), glog/c10 (`E0628 09:59:18.010000`, `[E628 09:54:15.885613614 ...]`),
syslog (`May  1 12:00:00 host`), and `dmesg -T` (`[Sun Feb 23 16:24:18 2025]`). Formats without
a year or zone take the caller's `year` and `tz`. Raw dmesg uptimes (`[6781741.548779]`) carry no
wall-clock time and give None.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone, tzinfo

_MONTHS = {
    m: i
    for i, m in enumerate(
        ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"], 1
    )
}
_MON = "(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"

ISO_RE = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[T _](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?"
    r"(Z|[+-]\d{2}:?\d{2}(?!\d))?"
)
_GLOG_RE = re.compile(
    r"(?:^|[\[\s:])[IWEF](\d{1,2})(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?\b"
)
_SYSLOG_RE = re.compile(_MON + r" {1,2}(\d{1,2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))? ")
_DMESG_T_RE = re.compile(
    r"\[(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) " + _MON + r" +(\d{1,2}) (\d{2}):(\d{2}):(\d{2}) (\d{4})\]"
)
# Only the start of a line is searched: a timestamp deep in a message (a cancel time, a path)
# is not the time the line was written.
_HEAD = 96


def _frac(digits: str | None) -> int:
    return int((digits or "0")[:6].ljust(6, "0"))


def _zone(text: str | None, default: tzinfo) -> tzinfo:
    if not text:
        return default
    if text == "Z":
        return UTC
    sign = -1 if text[0] == "-" else 1
    digits = text[1:].replace(":", "")
    return timezone(sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:4])))


def _build(
    y: int, mo: int, d: int, h: int, mi: int, s: int, us: int, tz: tzinfo
) -> datetime | None:
    try:
        return datetime(y, mo, d, h, mi, s, us, tzinfo=tz).astimezone(UTC)
    except (ValueError, OverflowError):
        return None


def parse_iso(text: str, *, tz: tzinfo = UTC) -> datetime | None:
    """An ISO-ish timestamp anywhere in `text` (used for `CANCELLED AT ...`, torchrun `time :`)."""
    m = ISO_RE.search(text)
    if m is None:
        return None
    y, mo, d, h, mi, s = (int(g) for g in m.groups()[:6])
    try:
        zone = _zone(m.group(8), tz)
    except ValueError:
        return None
    return _build(y, mo, d, h, mi, s, _frac(m.group(7)), zone)


def parse_line_time(line: str, *, year: int, tz: tzinfo = UTC) -> datetime | None:
    """When a log line was written, from its leading timestamp; None if it has none."""
    head = line[:_HEAD]
    if "-" in head:
        m = ISO_RE.search(head)
        if m is not None:
            return parse_iso(m.group(0), tz=tz)
    m = _GLOG_RE.search(head)
    if m is not None:
        mo, d, h, mi, s = (int(g) for g in m.groups()[:5])
        return _build(year, mo, d, h, mi, s, _frac(m.group(6)), tz)
    m = _DMESG_T_RE.search(head)
    if m is not None:
        g = m.groups()
        return _build(int(g[5]), _MONTHS[g[0]], int(g[1]), int(g[2]), int(g[3]), int(g[4]), 0, tz)
    m = _SYSLOG_RE.search(head)
    if m is not None:
        g = m.groups()
        when = (int(g[1]), int(g[2]), int(g[3]), int(g[4]))
        return _build(year, _MONTHS[g[0]], *when, _frac(g[5]), tz)
    return None


def syslog_host(line: str) -> str | None:
    """The hostname of a syslog line (`Jan 16 14:04:39 pyrite kernel: ...`, or the same after an
    RFC 3339 stamp)."""
    # rsyslog's RFC 3339 stamps (Ubuntu's default since 23.10), `journalctl -o short-iso`.
    m = _SYSLOG_RE.match(line) or ISO_RE.match(line)
    if m is None:
        return None
    rest = line[m.end() :].lstrip(" ").split(" ", 1)
    # The daemons whose lines name the node they ran on: the kernel's, and Slurm's own.
    daemons = ("kernel", "systemd", "slurmd", "slurmstepd")
    return rest[0] if len(rest) == 2 and rest[1].startswith(daemons) else None


_RFC1123_YEAR = re.compile(r"\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{1,2} " + _MON + r" (\d{4}) ")


def guess_year(text: str) -> int | None:
    """The year of the first dated line in `text` (ISO, `dmesg -T`, or RFC 1123 as `kubectl
    describe` writes it), for formats that omit the year."""
    m = ISO_RE.search(text)
    if m:
        return int(m.group(1))
    m = _DMESG_T_RE.search(text) or _RFC1123_YEAR.search(text)
    return int(m.group(m.lastindex or 1)) if m else None
