"""`nvidia-smi dmon`: the GPU monitor a provider runs beside a burn-in, one row per GPU and
sampling interval, under two `#` lines that name the columns and give their units.

    # gpu   pwr gtemp mtemp    sm   mem   enc   dec  mclk  pclk sbecc dbecc   pci rxpci txpci
    # Idx     W     C     C     %     %     %     %   MHz   MHz  errs  errs  errs  MB/s  MB/s
        0    73    37     -    29     4     0     0  2505   875     0     0     0     -     -
        0     -     -     -

`-s` picks the column groups (p: pwr gtemp mtemp; u: sm mem enc dec, and jpg ofa on newer
drivers; c: mclk pclk; v: pviol tviol; m: fb bar1 ccpm; e: sbecc dbecc pci; t: rxpci txpci),
`-o DT` puts `#Date Time` columns first (`20240104   13:54:35      0 ...`), `-i` limits the GPUs,
and a long capture repeats the two header lines every so many rows. `-` is a value the GPU does
not report. A GPU that falls off the bus leaves a row cut short after its index, or a row of `-`
only: that row is kept as a sample (the GPU was lost there), never refused as a broken file.
Columns this module does not know are kept by name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import ClassVar

from engine.evidence.parsers.base import DmonError, decode_text
from engine.evidence.parsers.header import EvidenceOrigin

KIND = "nvidia-smi-dmon"

Number = int | float
Value = Number | str | None

# The metric columns dmon prints, as it names them: each holds a number or `-`.
KNOWN_COLUMNS = (
    "pwr", "gtemp", "mtemp",
    "sm", "mem", "enc", "dec", "jpg", "ofa",
    "mclk", "pclk",
    "pviol", "tviol",
    "fb", "bar1", "ccpm",
    "sbecc", "dbecc", "pci",
    "rxpci", "txpci",
)  # fmt: skip
_KNOWN = frozenset(KNOWN_COLUMNS)
# Columns that come before `gpu` with `-o D`, `-o T` or `-o DT`.
_STAMPS = ("date", "time")
_NAMES_RE = re.compile(r"^#\s*(?:(?:Date|Time)\s+){0,2}gpu(?:\s|$)", re.I)
_UNITS_RE = re.compile(r"^#\s*(?:\S+\s+){0,2}Idx(?:\s|$)")
_DATE_RE = re.compile(r"^\d{4}[/-]?\d\d[/-]?\d\d$")
_TIME_RE = re.compile(r"^\d\d:\d\d:\d\d$")
_NUMBER_RE = re.compile(r"^\d{1,30}(?:\.\d{1,30})?$")
_INDEX_RE = re.compile(r"^\d{1,4}$")
# What nvidia-smi prints in place of a row when the driver or a GPU fails mid-capture.
_TOOL_MESSAGE_RE = re.compile(
    r"unable to|failed|error|gpu is lost|fallen off|nvml|no devices|not supported|terminat", re.I
)


@dataclass(frozen=True)
class DmonSample:
    """One row: a GPU at one sampling interval. `values` holds one entry per column of the
    header, in its order: a number, None for `-` or for a column the row does not reach, or (in
    a column this module does not know) the text. `truncated`: the row stopped short."""

    gpu: int
    line: int
    values: tuple[Value, ...]
    date: str | None = None
    time: str | None = None
    truncated: bool = False

    @property
    def blank(self) -> bool:
        """No column holds a reading: the driver answered `-` for everything, or the row stops
        after the GPU index."""
        return all(v is None for v in self.values)


@dataclass(frozen=True)
class DmonMessage:
    line: int
    text: str


@dataclass(frozen=True)
class DmonResult:
    KIND: ClassVar[str] = KIND
    columns: tuple[str, ...]  # the metric columns after `gpu`, as the header names them
    units: tuple[str, ...]  # their units, in the same order
    stamps: tuple[str, ...]  # ("date", "time") with -o DT, ("time",) with -o T, else ()
    samples: tuple[DmonSample, ...]
    header_line: int
    # Lines nvidia-smi printed instead of a row ("Unable to determine the device handle...").
    messages: tuple[DmonMessage, ...] = ()
    # The collector's header, when the file has one (engine/evidence/parsers/header.py).
    origin: EvidenceOrigin | None = field(default=None, metadata={"json": False})

    @property
    def gpus(self) -> tuple[int, ...]:
        """The GPU indices sampled, in the order they first appear."""
        return tuple(dict.fromkeys(s.gpu for s in self.samples))

    def reading(self, sample: DmonSample, column: str) -> Number | None:
        """A known column's number in one row (None: `-`, cut off, or not in this capture)."""
        if column not in self.columns:
            return None
        value = sample.values[self.columns.index(column)]
        return None if isinstance(value, str) else value


def detect(text: str) -> float:
    lines = [ln.strip() for ln in text[:20_000].split("\n") if ln.strip()][:40]
    for n, line in enumerate(lines):
        if not _NAMES_RE.match(line):
            continue
        names = {w.lower() for w in line.lstrip("#").split()}
        if "pid" in names:
            return 0.0  # nvidia-smi pmon: per process, not per GPU
        if n + 1 < len(lines) and _UNITS_RE.match(lines[n + 1]):
            return 0.95
        if len(names & _KNOWN) >= 2:
            return 0.6
    return 0.0


@dataclass(frozen=True)
class _Header:
    stamps: tuple[str, ...]
    columns: tuple[str, ...]
    names_line: int
    units: tuple[str, ...] = ()


def _read_names(text: str, lineno: int) -> _Header:
    words = text.lstrip("#").split()
    lowered = [w.lower() for w in words]
    at = lowered.index("gpu")
    stamps = tuple(lowered[:at])
    if any(s not in _STAMPS for s in stamps) or len(set(stamps)) != len(stamps):
        raise DmonError(
            f"the columns before 'gpu' must be Date and/or Time (-o DT), found {words[:at]}",
            line=lineno,
            kind=KIND,
        )
    columns = tuple(words[at + 1 :])
    doubled = next((c for c in columns if columns.count(c) > 1), None)
    if doubled is not None:
        raise DmonError(f"the header names column {doubled!r} twice", line=lineno, kind=KIND)
    return _Header(stamps, columns, lineno)


def _read_units(header: _Header, text: str | None, lineno: int) -> _Header:
    if text is None or not _UNITS_RE.match(text):
        raise DmonError(
            f"expected the units line ('# Idx W C ...') after the column names on line "
            f"{header.names_line}",
            line=lineno,
            kind=KIND,
        )
    units = tuple(text.lstrip("#").split())[len(header.stamps) + 1 :]
    if len(units) != len(header.columns):
        raise DmonError(
            f"the units line gives {len(units)} units for the {len(header.columns)} columns "
            f"named on line {header.names_line}",
            line=lineno,
            kind=KIND,
        )
    return _Header(header.stamps, header.columns, header.names_line, units)


def _number(token: str, column: str, lineno: int) -> Value:
    if token == "-":
        return None
    if _NUMBER_RE.match(token):
        return float(token) if "." in token else int(token)
    if column in _KNOWN:
        raise DmonError(
            f"{column} reads {token[:30]!r}: expected a number or '-'", line=lineno, kind=KIND
        )
    return token


def _stamps(header: _Header, words: list[str], lineno: int) -> dict[str, str]:
    found: dict[str, str] = {}
    for name, word in zip(header.stamps, words, strict=False):
        pattern = _DATE_RE if name == "date" else _TIME_RE
        if not pattern.match(word):
            shape = "YYYYMMDD" if name == "date" else "HH:MM:SS"
            raise DmonError(
                f"the {name} column reads {word[:30]!r}, not {shape}", line=lineno, kind=KIND
            )
        found[name] = word
    return found


def _sample(header: _Header, words: list[str], lineno: int) -> DmonSample:
    stamps = _stamps(header, words, lineno)
    rest = words[len(header.stamps) :]
    if not rest or not _INDEX_RE.match(rest[0]):
        got = repr(rest[0][:30]) if rest else "nothing"
        raise DmonError(
            f"expected a GPU index after {' and '.join(header.stamps) or 'the row start'}, "
            f"found {got}",
            line=lineno,
            kind=KIND,
        )
    values = rest[1:]
    if len(values) > len(header.columns):
        raise DmonError(
            f"the row holds {len(values)} values but the header on line {header.names_line} "
            f"names {len(header.columns)} columns",
            line=lineno,
            kind=KIND,
        )
    read = [_number(t, c, lineno) for c, t in zip(header.columns, values, strict=False)]
    missing = len(header.columns) - len(read)
    return DmonSample(
        gpu=int(rest[0]),
        line=lineno,
        values=(*read, *([None] * missing)),
        date=stamps.get("date"),
        time=stamps.get("time"),
        truncated=missing > 0,
    )


@dataclass
class _State:
    header: _Header | None = None
    first: _Header | None = None
    awaiting_units: bool = False
    samples: list[DmonSample] = field(default_factory=list)
    messages: list[DmonMessage] = field(default_factory=list)


def _header_line(state: _State, text: str, lineno: int) -> None:
    if state.awaiting_units:
        assert state.header is not None
        state.header = _read_units(state.header, text, lineno)
        state.awaiting_units = False
        if state.first is None:
            state.first = state.header
        elif (state.header.stamps, state.header.columns) != (
            state.first.stamps,
            state.first.columns,
        ):
            raise DmonError(
                f"this header names other columns than the one on line {state.first.names_line}:"
                " two captures in one file; upload each capture as its own file",
                line=state.header.names_line,
                kind=KIND,
            )
        return
    if _NAMES_RE.match(text):
        state.header = _read_names(text, lineno)
        state.awaiting_units = True
    # Any other comment line (a note the collector added) is not part of the table.


def _data_line(state: _State, text: str, lineno: int) -> None:
    if state.awaiting_units:
        assert state.header is not None
        _read_units(state.header, None, lineno)
    words = text.split()
    if state.header is None:
        if _TOOL_MESSAGE_RE.search(text):
            state.messages.append(DmonMessage(lineno, text[:200]))
            return
        raise DmonError(
            f"a row before the '# gpu' header line: {text[:40]!r}", line=lineno, kind=KIND
        )
    index_at = len(state.header.stamps)
    is_row = len(words) > index_at and _INDEX_RE.match(words[index_at])
    if not is_row and _TOOL_MESSAGE_RE.search(text):
        state.messages.append(DmonMessage(lineno, text[:200]))
        return
    state.samples.append(_sample(state.header, words, lineno))


def parse(text: str | bytes) -> DmonResult:
    text = decode_text(text, kind=KIND, error=DmonError)
    state = _State()
    for lineno, raw in enumerate(text.split("\n"), start=1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            _header_line(state, line, lineno)
        else:
            _data_line(state, line, lineno)
    if state.awaiting_units:
        assert state.header is not None
        _read_units(state.header, None, state.header.names_line + 1)
    header = state.first
    if header is None:
        first = next((ln.strip() for ln in text.split("\n") if ln.strip()), "")
        raise DmonError(
            f"no '# gpu' header line (nvidia-smi dmon); first line reads {first[:60]!r}",
            kind=KIND,
        )
    if not state.samples:
        raise DmonError(
            "the dmon header is followed by no sample row", line=header.names_line, kind=KIND
        )
    return DmonResult(
        columns=header.columns,
        units=header.units,
        stamps=header.stamps,
        samples=tuple(state.samples),
        header_line=header.names_line,
        messages=tuple(state.messages),
    )
