"""Timestamps in the logs' own formats, returned as aware UTC datetimes (or None).

Formats: ISO 8601 (`T` or space or `_`, `.`/`,` fractions, `Z`/offsets — also inside `[...]` and
Python logging prefixes), glog/c10 (`E0628 09:59:18.010000`, `[E628 09:54:15.885613614 ...]`),
syslog (`May  1 12:00:00 host`), and `dmesg -T` (`[Sun Feb 23 16:24:18 2025]`). Formats without
a zone take the caller's `tz`; without a year, the caller's `year`: a number, or a `LogYear` that
places each month and day within a year of the latest date the logs or the clock know. Raw dmesg
uptimes (`[6781741.548779]`) carry no wall-clock time and give None.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, timezone, tzinfo

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


@dataclass(frozen=True, slots=True)
class LogYear:
    """The year of a stamp that has none, from the latest date known beside it.

    Syslog and glog lines carry a month and a day only, and a run that crossed New Year holds
    December's lines and January's. Against a date the logs themselves wrote (`seen`), a stamp
    takes the year that puts it within six months of that date; against the clock, the latest
    year that does not put it in the future (a log read in January holds December's lines)."""

    latest: date
    seen: bool  # `latest` was read from the logs, not the clock

    def of(self, month: int, day: int) -> int:
        ref = self.latest
        if self.seen:
            if month - ref.month > 6:
                return ref.year - 1
            return ref.year + 1 if ref.month - month > 6 else ref.year
        # A day's slack: the clock is UTC, the stamp in the node's own zone.
        return ref.year - 1 if (month, day) > (ref.month, ref.day + 1) else ref.year


Year = int | LogYear


def _year(year: Year, month: int, day: int) -> int:
    return year if isinstance(year, int) else year.of(month, day)


def parse_line_time(line: str, *, year: Year, tz: tzinfo = UTC) -> datetime | None:
    """When a log line was written, from its leading timestamp; None if it has none."""
    head = line[:_HEAD]
    if "-" in head:
        m = ISO_RE.search(head)
        if m is not None:
            return parse_iso(m.group(0), tz=tz)
    m = _GLOG_RE.search(head)
    if m is not None:
        mo, d, h, mi, s = (int(g) for g in m.groups()[:5])
        return _build(_year(year, mo, d), mo, d, h, mi, s, _frac(m.group(6)), tz)
    m = _DMESG_T_RE.search(head)
    if m is not None:
        g = m.groups()
        return _build(int(g[5]), _MONTHS[g[0]], int(g[1]), int(g[2]), int(g[3]), int(g[4]), 0, tz)
    m = _SYSLOG_RE.search(head)
    if m is not None:
        g = m.groups()
        mo, when = _MONTHS[g[0]], (int(g[1]), int(g[2]), int(g[3]), int(g[4]))
        return _build(_year(year, mo, when[0]), mo, *when, _frac(g[5]), tz)
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


def _dates(text: str) -> Iterable[date]:
    """Every year-bearing date in `text` (ISO, `dmesg -T`, RFC 1123 as `kubectl describe`
    writes it), invalid ones skipped."""
    for m in ISO_RE.finditer(text):
        yield from _valid(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    for m in _DMESG_T_RE.finditer(text):
        yield from _valid(int(m.group(6)), _MONTHS[m.group(1)], int(m.group(2)))
    for m in _RFC1123_DATE.finditer(text):
        yield from _valid(int(m.group(3)), _MONTHS[m.group(2)], int(m.group(1)))


def _valid(y: int, mo: int, d: int) -> Iterable[date]:
    try:
        yield date(y, mo, d)
    except ValueError:
        return


_RFC1123_DATE = re.compile(r"\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d{1,2}) " + _MON + r" (\d{4}) ")
# How much of each file's tail (else its head) is searched: a log's last dated line is near its
# end, and a bundle of 16,384 rank logs must not be read twice over.
_EDGE = 8_192


def log_year(texts: Iterable[str], *, now: datetime) -> LogYear:
    """The reference for stamps without a year: the latest date the logs write near their ends
    (else near their starts), else the clock's today."""
    latest: date | None = None
    for text in texts:
        found = max(_dates(text[-_EDGE:]), default=None) or max(_dates(text[:_EDGE]), default=None)
        if found is not None and (latest is None or found > latest):
            latest = found
    if latest is None:
        return LogYear(now.date(), seen=False)
    return LogYear(latest, seen=True)
