"""Usage lines as plain data, read from a table through a mapping.

Money and quantities are integers: micro-dollars and micro-GPU-minutes (an hour is 60,000,000
micro-GPU-minutes). Each number is parsed from its text without `Decimal`, so a million lines
cost one integer parse per cell and the sums are exact; rounding to the cent happens once, at
the end (see `reconcile.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from engine.billing.charges import Cover
from engine.billing.errors import UsageError
from engine.billing.mapping import FIELDS, GPU_MINUTES, Mapping
from engine.billing.reader import Table, positioned
from engine.formatting import cents

MICRO = 1_000_000
HOUR_MICRO = 60 * MICRO  # micro-GPU-minutes in a GPU-hour
GPU = "gpu"
EGRESS = "egress"
FEE = "fee"
LINE_TYPES = {
    "": GPU,
    "gpu": GPU,
    "gpus": GPU,
    "compute": GPU,
    "gpu-hours": GPU,
    "gpu_hours": GPU,
    "usage": GPU,
    "egress": EGRESS,
    "network": EGRESS,
    "data transfer": EGRESS,
    "bandwidth": EGRESS,
    "fee": FEE,
    "fees": FEE,
    "support": FEE,
    "setup": FEE,
    "other": FEE,
}


@dataclass(slots=True)
class UsageLine:
    line: int  # in the file, the header being line 1
    start: int  # UTC, seconds since the epoch
    end: int
    node: str
    gpus: int
    quantity: int  # micro-GPU-minutes
    rate: int | None  # micro-dollars per GPU-hour
    amount: int | None  # micro-dollars
    kind: str  # gpu | egress | fee
    # Added for the cloud profiles (engine/billing/profiles.py); last and with defaults, so every
    # existing caller and the positional construction above keep working.
    currency: str = ""  # as the file names it (ISO code); "" when it names none
    charge: str = ""  # the file's charge class: usage, tax, credit, discount, refund, fee...
    instance_type: str = ""  # as billed, e.g. "p5.48xlarge"; "" when the line names none
    # The commitment that covers the line when the file states no effective cost for it: its
    # rate is 0.00 or on demand, not what the hour cost (`rules._rate` says so).
    cover: Cover | None = None


def to_micro(value: Any) -> int:
    """A number in millionths, exact for decimal text with up to six places (more are rounded
    half up). Raises ValueError for text that is no number."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return round(value * MICRO)
    text = str(value).strip().replace(",", "").lstrip("$€£").strip()
    negative = text.startswith("-")
    if negative or text.startswith("+"):
        text = text[1:]
    whole, dot, frac = text.partition(".")
    if (whole.isdigit() or (dot and not whole)) and (not frac or frac.isdigit()):
        micros = int(whole or "0") * MICRO + int((frac[:6] or "0").ljust(6, "0"))
        if len(frac) > 6 and frac[6] >= "5":
            micros += 1
    else:
        try:  # exponents, "Infinity"...: rare, so the slow path is fine
            exact = Decimal(text)
            if not exact.is_finite():
                raise ValueError(text)
            micros = int((exact * MICRO).to_integral_value())
        except InvalidOperation:
            raise ValueError(text) from None
    return -micros if negative else micros


def dollars(micros: int) -> Decimal:
    """Micro-dollars as dollars to the cent, half up: what a total or a difference stores."""
    return cents(Decimal(micros).scaleb(-6))


def gpu_hours(micro_gpu_minutes: int) -> Decimal:
    """Micro-GPU-minutes as GPU-hours, exactly."""
    return Decimal(micro_gpu_minutes) / HOUR_MICRO


_EPOCH_DAY = date(1970, 1, 1).toordinal()
_UTC_SUFFIXES = ("", "Z", "+00:00")


def _utc_seconds(text: str, days: dict[str, int]) -> int | None:
    """`YYYY-MM-DD[T ]HH:MM:SS` in UTC as epoch seconds without building a datetime (the usual
    export shape, a million times); None for anything else, which takes the full parser."""
    if len(text) < 19 or text[10] not in "T " or text[19:] not in _UTC_SUFFIXES:
        return None
    day = days.get(text[:10])
    if day is None:
        try:
            day = (date.fromisoformat(text[:10]).toordinal() - _EPOCH_DAY) * 86_400
        except ValueError:
            return None
        days[text[:10]] = day
    clock = text[11:19]
    if clock[2] != ":" or clock[5] != ":" or not (clock[:2] + clock[3:5] + clock[6:]).isdigit():
        return None
    hours, minutes, seconds = int(clock[:2]), int(clock[3:5]), int(clock[6:])
    if hours > 23 or minutes > 59 or seconds > 59:
        return None
    return day + hours * 3600 + minutes * 60 + seconds


_ABSENT = object()
_CACHE_LIMIT = 8192  # distinct cell texts remembered per column: rates, counts and times repeat
_NUMBERS = ("gpus", "quantity", "rate", "amount")
_TIMES = ("period_start", "period_end")
# The order in which the row loop binds each field's column and cache to locals.
_ROW_FIELDS = (
    "line_type",
    "period_start",
    "period_end",
    "node",
    "gpus",
    "quantity",
    "rate",
    "amount",
)


@dataclass(frozen=True, slots=True)
class _Columns:
    """Per field of `_ROW_FIELDS`, where a row holds it (-1: unmapped) and the texts parsed."""

    index: tuple[int, ...]
    cache: tuple[dict[Any, Any], ...]


class LineReader:
    """Turns mapped rows into `UsageLine`s; errors name the line and the file's column.

    Each column keeps a cache of the cell texts it has parsed: a year of lines holds a few
    distinct rates and GPU counts and each timestamp once per node, so most cells cost one
    dictionary hit. An unmapped column reads the `None` appended to every row."""

    def __init__(self, headers: list[str], mapping: Mapping) -> None:
        missing = mapping.missing(headers)
        if missing:
            raise UsageError(
                f"the mapping does not say which column holds: {', '.join(missing)}. "
                f"The file's headers are: {', '.join(h for h in headers if h)}.",
                line=1,
            )
        self.mapping = mapping
        self.width = len(headers)
        self.names = {f: h for f, h in mapping.columns.items() if h}
        self.index = {f: headers.index(self.names[f]) if f in self.names else -1 for f in FIELDS}
        self.per_gpu_hours = mapping.unit != GPU_MINUTES
        self.cache: dict[str, dict[Any, Any]] = {f: {None: None, "": None} for f in FIELDS}
        # One period's end is the next one's start: both columns share what they parsed.
        self.cache["period_end"] = self.cache["period_start"]
        self._days: dict[str, int] = {}

    def _miss(self, name: str, raw: Any, line: int) -> Any:
        """Parse a cell not seen before in its column, and remember it."""
        text = raw.strip() if isinstance(raw, str) else raw
        column = self.names.get(name, "")
        value: Any = None
        if text is not None and text != "":
            if name in _NUMBERS:
                try:
                    value = to_micro(text)
                except ValueError:
                    raise UsageError(
                        f"'{text}' is not a number.", line=line, column=column
                    ) from None
            elif name in _TIMES:
                value = self._to_time(text, line, column)
            else:
                value = str(text)
        cache = self.cache[name]
        if len(cache) >= _CACHE_LIMIT:
            cache.clear()  # the lines move on in time; old texts do not come back
            cache.update({None: None, "": None})
        cache[raw] = value
        return value

    def _to_time(self, value: Any, line: int, column: str) -> int:
        if isinstance(value, datetime):
            moment = value
        elif isinstance(value, date):
            moment = datetime(value.year, value.month, value.day)
        else:
            text = str(value)
            fast = None if self.mapping.date_format else _utc_seconds(text, self._days)
            if fast is not None:
                return fast
            try:
                if self.mapping.date_format:
                    moment = datetime.strptime(text, self.mapping.date_format)
                else:
                    moment = datetime.fromisoformat(text)
            except ValueError:
                want = self.mapping.date_format or "ISO 8601, e.g. 2026-03-01T14:00:00Z"
                raise UsageError(
                    f"'{text}' is not a date and time ({want}).", line=line, column=column
                ) from None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)  # usage exports are in UTC unless they say
        return int(moment.timestamp())

    def _empty(self, line: int, name: str, what: str) -> UsageError:
        return UsageError(f"{what} is empty.", line=line, column=self.names[name])

    def _invalid(self, line: int, name: str, message: str) -> UsageError:
        return UsageError(message, line=line, column=self.names[name])

    def _columns(self) -> _Columns:
        return _Columns(
            index=tuple(self.index[f] for f in _ROW_FIELDS),
            cache=tuple(self.cache[f] for f in _ROW_FIELDS),
        )

    def read(self, line: int, cells: list[Any]) -> UsageLine:
        """One row as a `UsageLine` (see `reader()` for the fast loop)."""
        return self.reader()(line, cells)

    def reader(self) -> Callable[[int, list[Any]], UsageLine]:
        """The row reader with every lookup bound to a local: this runs once per line, so the
        cache hits are inlined rather than called. Every row reads its type, start, node, rate
        and amount here; a GPU line's count, quantity and end are read by `_gpu_reader()`."""
        width, miss, types, absent = self.width, self._miss, LINE_TYPES, _ABSENT
        columns = self._columns()
        i_type, i_start, _, i_node, _, _, i_rate, i_amount = columns.index
        c_type, c_start, _, c_node, _, _, c_rate, c_amount = columns.cache
        gpu_line = self._gpu_reader()

        def read(line: int, cells: list[Any]) -> UsageLine:
            if len(cells) < width:
                cells.extend([None] * (width - len(cells)))
            cells.append(None)  # what an unmapped column (index -1) reads
            raw = cells[i_type]
            kind = c_type.get(raw, absent)
            if kind is absent:
                kind = miss("line_type", raw, line)
            kind = types.get(kind.lower() if kind else "")
            if kind is None:
                raise self._invalid(
                    line, "line_type", f"'{raw}' is not a line type (gpu, egress or fee)."
                )
            raw = cells[i_start]
            start = c_start.get(raw, absent)
            if start is absent:
                start = miss("period_start", raw, line)
            if start is None:
                raise self._empty(line, "period_start", "the period start")
            raw = cells[i_node]
            node = c_node.get(raw, absent)
            if node is absent:
                node = miss("node", raw, line)
            raw = cells[i_amount]
            amount = c_amount.get(raw, absent)
            if amount is absent:
                amount = miss("amount", raw, line)
            raw = cells[i_rate]
            rate = c_rate.get(raw, absent)
            if rate is absent:
                rate = miss("rate", raw, line)
            if kind == GPU:
                return gpu_line(line, cells, start, node or "", rate, amount)
            if amount is None:
                raise self._empty(line, "amount", "the amount of a non-GPU line")
            return UsageLine(line, start, start, node or "", 0, 0, rate, amount, kind)

        return read

    def _gpu_reader(
        self,
    ) -> Callable[[int, list[Any], int, str, int | None, int | None], UsageLine]:
        """The rest of a GPU line: whole GPUs, a quantity in micro-GPU-minutes, a rate, and an
        end (the start plus the quantity's wall-clock time when the file gives none)."""
        per_hours, miss, absent = self.per_gpu_hours, self._miss, _ABSENT
        columns = self._columns()
        _, _, i_end, _, i_gpus, i_qty, _, _ = columns.index
        _, _, c_end, _, c_gpus, c_qty, _, _ = columns.cache

        def gpu_line(
            line: int, cells: list[Any], start: int, node: str, rate: int | None, amount: int | None
        ) -> UsageLine:
            raw = cells[i_gpus]
            gpus = c_gpus.get(raw, absent)
            if gpus is absent:
                gpus = miss("gpus", raw, line)
            if gpus is None:
                raise self._empty(line, "gpus", "the GPU count")
            if gpus % MICRO or gpus <= 0:
                raise self._invalid(line, "gpus", f"'{raw}' is not a whole number of GPUs.")
            gpus //= MICRO
            raw = cells[i_qty]
            qty = c_qty.get(raw, absent)
            if qty is absent:
                qty = miss("quantity", raw, line)
            if qty is None:
                raise self._empty(line, "quantity", "the quantity")
            # A negative quantity (a provider's refund or correction) is read as billed: the
            # reconciliation's negative rule lists it, never priced as use.
            if rate is None:
                raise self._empty(line, "rate", "the rate")
            quantity = qty * gpus * 60 if per_hours else qty
            raw = cells[i_end]
            end = c_end.get(raw, absent)
            if end is absent:
                end = miss("period_end", raw, line)
            if end is None:
                # Wall-clock seconds of the line, rounded up: the period must hold the quantity.
                end = start - (-abs(quantity) * 60 // (gpus * MICRO))
            elif end < start:
                raise self._invalid(line, "period_end", "the period ends before it starts.")
            return UsageLine(line, start, end, node, gpus, quantity, rate, amount, GPU)

        return gpu_line


def read_lines(table: Table, mapping: Mapping) -> Iterator[UsageLine]:
    """Every data row of `table` as a `UsageLine`; stops at the first row that cannot be read."""
    read = LineReader(table.headers, mapping).reader()
    for line, cells in table.rows:
        try:
            usage = read(line, cells)
        except UsageError as exc:
            raise positioned(exc, table) from None
        yield usage
