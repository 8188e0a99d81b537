"""`perftest` (linux-rdma): ib_write_bw, ib_read_bw, ib_send_bw and their _lat twins.

Each run prints a banner, the two ends' addresses, then one result table:

    ---------------------------------------------------------------------------------------
                        RDMA_Write BW Test
     Dual-port       : OFF          Device         : mlx5_0
     Number of qps   : 4            Transport type : IB
     ...
    ---------------------------------------------------------------------------------------
     #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]
     65536      20000            392.51             392.33             0.748320
    ---------------------------------------------------------------------------------------

The bandwidth unit follows the flags: `--report_gbits` prints Gb/sec; otherwise releases since
2024 print MiB/sec and older ones MB/sec (both computed with 2^20 bytes). `-a` prints a row per
message size, `--cpu_util` adds a CPU_Util column, `--report-per-port` the ports' columns. The
latency table is t_min, t_max, t_typical (the median), t_avg, t_stdev and the 99 % and 99.9 %
percentiles in microseconds; releases before 2017 print only the first three, and
`--duration` prints t_avg and transactions per second. A collector that loops over the HCAs
leaves one run after another in the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import ClassVar

from engine.evidence.parsers.base import PerftestError, decode_text, parse_number
from engine.evidence.parsers.header import EvidenceOrigin

KIND = "perftest"

_TITLE_RE = re.compile(
    r"^(Send|Send_imm|RDMA_Write|RDMA_Write_imm|RDMA_Read|Atomic)\s+"
    r"(?:(?:CMP_AND_SWAP|FETCH_AND_ADD)\s+)?(Bidirectional\s+)?(?:Post List\s+)?"
    r"(BW|Latency)\s+(?:forwarding\s+)?(?:Multicast\s+)?Test$"
)
_COLUMN_RE = re.compile(
    r"#\w+|BW (?:peak|average|Port\d)\[[^\]]+\]|MsgRate(?: Port\d)?\[Mpps\]|t_\w+\[\w+\]"
    r"|99(?:\.9)?% percentile\[\w+\]|tps average|CPU_Util\[%\]"
)
_SETTING_RE = re.compile(r"([A-Za-z][\w .*/-]*?)\s*:\s*(\S[^\t]*?)\s*(?=\t|$)")
_FAILURE_RE = re.compile(
    r"\b(?:couldn't|could not|unable|failed|failure|error|can't|cannot)\b", re.I
)
_VERBS = {
    "Send": "send",
    "Send_imm": "send",
    "RDMA_Write": "write",
    "RDMA_Write_imm": "write",
    "RDMA_Read": "read",
    "Atomic": "atomic",
}
# Column heading (unit taken off) -> row field.
_FIELDS = {
    "#bytes": "bytes",
    "#iterations": "iterations",
    "BW peak": "bw_peak",
    "BW average": "bw_average",
    "MsgRate": "msg_rate_mpps",
    "t_min": "t_min_us",
    "t_max": "t_max_us",
    "t_typical": "t_typical_us",
    "t_avg": "t_avg_us",
    "t_stdev": "t_stdev_us",
    "99% percentile": "p99_us",
    "99.9% percentile": "p999_us",
    "CPU_Util": "cpu_util_pct",
}
# Bytes per unit of a bandwidth heading, as bits per second per unit.
_BITS_PER_UNIT = {"Gb/sec": 1e9, "MiB/sec": 2**20 * 8, "MB/sec": 2**20 * 8}


@dataclass(frozen=True)
class PerftestRow:
    bytes: int
    iterations: int
    bw_peak: float | None = None
    bw_average: float | None = None
    msg_rate_mpps: float | None = None
    t_min_us: float | None = None
    t_max_us: float | None = None
    t_typical_us: float | None = None
    t_avg_us: float | None = None
    t_stdev_us: float | None = None
    p99_us: float | None = None
    p999_us: float | None = None
    cpu_util_pct: float | None = None
    # Columns with no field of their own (per-port bandwidth, service level, tps), by heading.
    other: dict[str, float] = field(default_factory=dict)
    line: int | None = None


@dataclass(frozen=True)
class PerftestRun:
    test: str | None  # "RDMA_Write BW"; None when the file holds only the table
    measure: str  # "bw" | "lat"
    rows: tuple[PerftestRow, ...]
    bw_unit: str | None = None  # "Gb/sec", "MiB/sec" or "MB/sec"
    bidirectional: bool = False
    settings: dict[str, str] = field(default_factory=dict)
    line: int | None = None

    @property
    def tool(self) -> str | None:
        """The binary that printed the run, e.g. "ib_write_bw"."""
        if self.test is None:
            return None
        verb = _VERBS.get(self.test.split()[0], "")
        return f"ib_{verb}_{self.measure}" if verb else None

    @property
    def qps(self) -> int | None:
        value = self.settings.get("Number of qps", "")
        return int(value) if value.isdigit() else None

    @property
    def device(self) -> str | None:
        return self.settings.get("Device")

    def gbps(self, value: float | None) -> float | None:
        """A bandwidth figure of this run in Gb/s, whatever unit the run printed."""
        if value is None or self.bw_unit not in _BITS_PER_UNIT:
            return None
        return value * _BITS_PER_UNIT[self.bw_unit] / 1e9


@dataclass(frozen=True)
class PerftestResult:
    KIND: ClassVar[str] = KIND
    runs: tuple[PerftestRun, ...]
    errors: tuple[str, ...] = ()
    origin: EvidenceOrigin | None = field(default=None, metadata={"json": False})


def detect(text: str) -> float:
    head = text[:20_000]
    if re.search(r"^\s*#bytes\s+#iterations\s+(?:BW peak|t_min|t_avg)", head, re.M):
        return 0.95
    title = re.search(
        r"^\s+(?:Send|RDMA_Write|RDMA_Read|Atomic)\b.*\b(?:BW|Latency) Test\s*$", head, re.M
    )
    return 0.9 if title and re.search(r"^\s*Number of qps\s*:", head, re.M) else 0.0


@dataclass
class _Run:
    test: str | None
    measure: str
    bidirectional: bool
    line: int
    settings: dict[str, str] = field(default_factory=dict)
    columns: tuple[tuple[str, str], ...] = ()  # (heading without unit, unit)
    rows: list[PerftestRow] = field(default_factory=list)

    def freeze(self) -> PerftestRun:
        units = [unit for name, unit in self.columns if name.startswith("BW ")]
        return PerftestRun(
            self.test,
            self.measure,
            tuple(self.rows),
            units[0] if units else None,
            self.bidirectional,
            dict(self.settings),
            self.line,
        )


def _columns(s: str, lineno: int) -> tuple[tuple[str, str], ...]:
    out = []
    for heading in _COLUMN_RE.findall(s):
        name, _, unit = heading.partition("[")
        out.append((name.strip(), unit.rstrip("]")))
    if len(out) < 3:
        raise PerftestError(
            f"result heading names {len(out)} columns; expected #bytes, #iterations and results",
            line=lineno,
            kind=KIND,
        )
    return tuple(out)


def _number(token: str, heading: str, lineno: int) -> float:
    value = parse_number(token) if len(token) < 40 else None
    if value is None or value < 0:
        raise PerftestError(
            f"{heading} reads {token[:30]!r}, not a measurement", line=lineno, kind=KIND
        )
    return float(value)


def _row(run: _Run, s: str, lineno: int) -> PerftestRow:
    tokens = s.split()
    if len(tokens) != len(run.columns):
        raise PerftestError(
            f"result row has {len(tokens)} values for {len(run.columns)} columns "
            f"({', '.join(name for name, _ in run.columns)}); file cut short or mixed?",
            line=lineno,
            kind=KIND,
        )
    values = {
        name: _number(t, name, lineno) for (name, _), t in zip(run.columns, tokens, strict=True)
    }
    known = {_FIELDS[n]: v for n, v in values.items() if n in _FIELDS}
    size = known.pop("bytes", 0.0)
    if size < 1 or not size.is_integer():
        raise PerftestError(
            f"#bytes reads {tokens[0]!r}, not a message size", line=lineno, kind=KIND
        )
    iterations = int(known.pop("iterations", 0.0))
    return PerftestRow(
        int(size),
        iterations,
        **known,  # the float fields, by their names in _FIELDS
        other={n: v for n, v in values.items() if n not in _FIELDS},
        line=lineno,
    )


@dataclass
class _State:
    runs: list[_Run] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    in_table: bool = False

    @property
    def current(self) -> _Run | None:
        return self.runs[-1] if self.runs else None


def _table_heading(state: _State, s: str, lineno: int) -> None:
    columns = _columns(s, lineno)
    run = state.current
    measure = "lat" if any(n.startswith("t_") for n, _ in columns) else "bw"
    if run is None or run.columns:
        # A table with no banner before it (--output trimmed, or `| tail`): a run of its own.
        run = _Run(None, measure, False, lineno)
        state.runs.append(run)
    run.columns = columns
    state.in_table = True


def _line(state: _State, s: str, lineno: int) -> None:
    if s.startswith("---"):
        state.in_table = False
    elif m := _TITLE_RE.match(s):
        measure = "bw" if m.group(3) == "BW" else "lat"
        test = f"{m.group(1)}{' Bidirectional' if m.group(2) else ''} {m.group(3)}"
        state.runs.append(_Run(test, measure, bool(m.group(2)), lineno))
        state.in_table = False
    elif s.startswith("#bytes"):
        _table_heading(state, s, lineno)
    elif state.in_table and state.current is not None and s[0].isdigit():
        state.current.rows.append(_row(state.current, s, lineno))
    elif _FAILURE_RE.search(s):
        state.errors.append(s)
    elif state.current is not None and not state.current.columns and ":" in s:
        state.current.settings.update(
            (k.strip(), v.strip())
            for k, v in _SETTING_RE.findall(s)
            if "address" not in k and k != "GID"
        )


def parse(text: str | bytes) -> PerftestResult:
    text = decode_text(text, kind=KIND, error=PerftestError)
    state = _State()
    for lineno, raw in enumerate(text.split("\n"), start=1):
        s = raw.strip()
        if s:
            _line(state, s, lineno)
    for run in state.runs:
        if not run.rows and not state.errors:
            what = f"{run.test} Test" if run.test else "result table"
            raise PerftestError(
                f"{what} has no result row (file cut short?)", line=run.line, kind=KIND
            )
    runs = tuple(r.freeze() for r in state.runs if r.rows)
    if not runs and not state.errors:
        first = next((ln.strip() for ln in text.split("\n") if ln.strip()), "")
        raise PerftestError(
            "no perftest result table ('#bytes #iterations ...') found; "
            f"first line reads {first[:60]!r}",
            kind=KIND,
        )
    return PerftestResult(runs=runs, errors=tuple(state.errors))
