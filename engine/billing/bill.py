"""A provider's bill read under its profile (`profiles.py`): every line classified, GPU usage in
micro-GPU-minutes at a rate per GPU-hour, every bad cell listed (up to a cap, the rest counted)
instead of stopping at the first, and every instance type whose GPUs the engine does not know
asked about, never guessed.

`Bill.lines` holds what `reconcile()` reads (GPU usage, egress, fees); `Bill.other` the tax,
credit, discount, refund, purchase, adjustment and correction lines, classified and totalled but
never priced as GPU usage.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from engine.billing.catalogue import lookup
from engine.billing.charges import USAGE, Cover, Profile
from engine.billing.errors import UsageError
from engine.billing.lines import EGRESS, FEE, GPU, HOUR_MICRO, MICRO, UsageLine
from engine.billing.localized import (
    COMMA,
    DOT,
    ISO,
    detect_date_order,
    detect_decimal,
    is_bare_date,
    parse_number,
    parse_time,
)
from engine.billing.meters import EGRESS as METER_EGRESS
from engine.billing.meters import OTHER, PER_GPU
from engine.billing.parquet import row_name
from engine.billing.profiles import Proposal, is_known_header, propose
from engine.billing.sheet import Detected, Overrides, Sheet, read_sheet

MAX_ERRORS = 50
DAY = 86_400
_NUMBERS = ("quantity", "rate", "amount", "gpus", "exchange")
_COSTS = ("amount", "rate", "effective", "ri_effective", "sp_effective")  # fields pricing a line
_TOTAL = re.compile(r"^\s*(grand\s+)?(sub)?-?totals?\b", re.IGNORECASE)
_TIME_WORDS = {"s": 1, "sec": 1, "second": 1, "min": 60, "minute": 60, "h": 3600, "hr": 3600}
_TIME_WORDS |= {"hour": 3600, "day": DAY}
_SYMBOL = re.compile(r"\((\$|€|£|[A-Za-z]{3})\)|(?:^|_)(usd|eur|gbp)$", re.IGNORECASE)
_CODES = {"$": "USD", "€": "EUR", "£": "GBP"}


@dataclass(frozen=True)
class Unit:
    seconds: int  # of one unit; 0: not a time (GB, requests, a month of support)
    per_gpu: bool  # the unit already counts GPUs ("GPU-Hours")


@lru_cache(maxsize=256)  # a pure function of a column that repeats one value on every line
def parse_unit(*, text: str) -> Unit:
    """ "Hrs", "1 Hour", "10 Hours" (Azure prices some meters per 10 hours), "GPU-Hours",
    "seconds", "gpu-minutes"; anything else is not a time."""
    match = re.match(r"^\s*(\d+)\s*(.*)$", text)
    multiple, rest = (int(match.group(1)), match.group(2)) if match else (1, text)
    rest = rest.lower()
    for word in re.split(r"[^a-z]+", re.sub(r"gpu|instance|per", " ", rest)):
        seconds = _TIME_WORDS.get(word.rstrip("s") if len(word) > 2 else word)
        if seconds:
            return Unit(seconds * max(multiple, 1), "gpu" in rest)
    return Unit(0, "gpu" in rest)


@dataclass(frozen=True)
class Question:
    """What the user must answer before these lines can be priced."""

    instance_type: str  # "" when the lines name no type at all
    lines: tuple[int, ...]  # the first ones
    count: int
    ask: str


@dataclass
class Bill:
    detected: Detected
    proposal: Proposal
    lines: list[UsageLine] = field(default_factory=list)  # GPU, egress, fee: reconcile() reads
    other: list[UsageLine] = field(default_factory=list)  # tax, credit, discount, refund...
    questions: list[Question] = field(default_factory=list)
    errors: list[UsageError] = field(default_factory=list)
    more_errors: int = 0  # past the cap, counted only

    def totals(self) -> dict[str, int]:
        """Micro-dollars billed per charge class (usage split into gpu, egress and fee)."""
        out: dict[str, int] = {}
        for u in self.lines + self.other:
            name = u.kind if u.charge == USAGE else u.charge
            out[name] = out.get(name, 0) + (u.amount or 0)
        return out


_CODE = re.compile(r"^[A-Za-z]{3}$")


def _stated_currency(preamble: list[list[Any]]) -> str:
    """The ISO code a "Currency" line above the header names; "" when none does."""
    for cells in preamble:
        texts = [_text(c) for c in cells if _text(c)]
        if len(texts) >= 2 and texts[0].lower() == "currency" and _CODE.match(texts[1]):
            return texts[1].upper()
    return ""


def _letter(index: int) -> str:
    name = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        name = chr(65 + rest) + name
    return name


def _text(value: Any) -> str:
    return "" if value is None else str(value).strip()


class _Problems:
    """Bad cells of one row, reported to the bill once the row is read."""

    def __init__(self) -> None:
        self.items: list[tuple[str, str]] = []

    def add(self, name: str, message: str) -> None:
        self.items.append((name, message))


@dataclass(frozen=True, slots=True)
class _Common:
    """What every line of a bill has, read before its charge class decides the rest."""

    line: int
    start: int
    end: int | None
    node: str
    amount: int | None
    charge: str
    currency: str
    covered: bool = False  # priced at its effective cost under a commitment: no rate of its own
    cover: Cover | None = None  # a commitment covers it, and the file states no effective cost


@dataclass(frozen=True)
class _Settings:
    decimal: str
    order: str
    node_gpus: int | None
    answers: dict[str, int]
    max_errors: int


class _Reader:
    """Turns each row into a line of the bill, collecting errors, questions and total rows."""

    def __init__(self, sheet: Sheet, proposal: Proposal, settings: _Settings) -> None:
        self.proposal, self.profile, self.settings = proposal, proposal.profile, settings
        self.index = {f: sheet.headers.index(h) for f, h in proposal.columns.items()}
        self.detected = sheet.detected
        self.bill = Bill(detected=sheet.detected, proposal=proposal)
        self.asked: dict[str, list[int]] = {}
        self.totals: list[int] = []
        self.read = 0  # lines read (total rows are not)
        self.costed = False  # whether any line states an amount, a rate or an effective cost
        amount_header = proposal.columns.get("amount", "")
        symbol = _SYMBOL.search(amount_header)
        code = (symbol.group(1) or symbol.group(2)) if symbol else ""
        # A line above the header stating the currency ("Currency,AUD": Google's cost table,
        # whose headers say "Cost ($)" whatever the account's currency) wins over the symbol.
        self.currency = _stated_currency(sheet.preamble) or _CODES.get(code, code.upper())
        self.rate_per_gpu_hour = self.profile.rate_per_gpu_hour(proposal.columns.get("rate", ""))

    def error(self, line: int, name: str, message: str) -> None:
        if len(self.bill.errors) >= self.settings.max_errors:
            self.bill.more_errors += 1
            return
        header = self.proposal.columns.get(name, "")
        cell = ""
        if self.detected.kind == "xlsx" and name in self.index:
            where = f"{_letter(self.index[name])}{line}"
            cell = f"sheet '{self.detected.sheet}', cell {where}"
        elif self.detected.kind == "parquet":
            cell = row_name(line)  # a Parquet file has rows, not the CSV export's lines
        self.bill.errors.append(UsageError(message, line=line, column=header, cell=cell))

    def number(self, row: dict[str, Any], name: str, problems: _Problems) -> int | None:
        raw = row.get(name)
        if raw is None or _text(raw) == "":
            return None
        try:
            return parse_number(raw, decimal=self.settings.decimal)
        except ValueError as exc:
            problems.add(name, f"{exc}.")
            return None

    def time(self, row: dict[str, Any], name: str, problems: _Problems) -> int | None:
        raw = row.get(name)
        if raw is None or _text(raw) == "":
            return None
        try:
            return parse_time(raw, order=self.settings.order)
        except ValueError as exc:
            problems.add(name, f"{exc}.")
            return None

    def total(self, line: int, cells: list[Any], row: dict[str, Any]) -> str:
        """ "total" ends the table, "subtotal" is skipped, "" is a line: a total row names itself
        in its first cells (or, its first cells empty, in its charge type, as Google's cost
        table does) and has no node (but its own label) and no start."""
        first = next((c for c in cells[:3] if _text(c)), None) or row.get("charge")
        if not isinstance(first, str) or _text(row.get("period_start")):
            return ""
        match = _TOTAL.match(first)
        if match is None or _text(row.get("node")) not in ("", first.strip()):
            return ""
        self.totals.append(line)
        return "subtotal" if match.group(2) else "total"

    def row(self, line: int, cells: list[Any]) -> bool:
        """Read one row; False once a total row ends the table."""
        row = {f: (cells[i] if i < len(cells) else None) for f, i in self.index.items()}
        if self.profile.nulls:
            row = {f: (None if c in self.profile.nulls else c) for f, c in row.items()}
        found = self.total(line, cells, row)
        if found:
            return found != "total"
        self.read += 1
        if not self.costed:
            self.costed = any(_text(row.get(name)) for name in _COSTS)
        problems = _Problems()
        charge = self.profile.charge(row)
        start = self.time(row, "period_start", problems)
        end = self.time(row, "period_end", problems)
        if (
            end is not None
            and self.profile.inclusive_end_date
            and is_bare_date(row.get("period_end"))
        ):
            end += DAY
        amount = self.number(row, "amount", problems)
        # A stated effective cost prices the line; 0.00 is not one (Azure's actual-cost export
        # bills covered hours 0.00 in the column its amortized export states it in).
        effective = self.effective(row, problems) if charge == USAGE else None
        covered = bool(effective)
        if covered:
            amount = effective
        cover = self.profile.cover(row) if charge == USAGE and not covered else None
        if start is None and charge == USAGE and not problems.items:
            problems.add("period_start", "the usage start is empty.")
        if problems.items:  # the rest of the row's numbers too: every bad cell at once
            for name in ("quantity", "rate", "gpus", "exchange"):
                self.number(row, name, problems)
        else:
            common = _Common(
                line,
                start or 0,
                end,
                _text(row.get("node")),
                amount,
                charge,
                self.currency_of(row),
                covered,
                cover,
            )
            if charge == USAGE:
                self.usage(row, common, problems)
            else:
                self.non_usage(common, problems)
        for name, message in problems.items:
            self.error(line, name, message)
        return True

    def effective(self, row: dict[str, Any], problems: _Problems) -> int | None:
        """The line's effective cost when a commitment covers it and the file states one."""
        name = self.profile.effective(row)
        return None if name is None else self.number(row, name, problems)

    def currency_of(self, row: dict[str, Any]) -> str:
        return _text(row.get("currency")).upper() or self.currency

    def non_usage(self, c: _Common, problems: _Problems) -> None:
        """Tax, credit, discount, refund...: kept with its class; a fee goes to reconcile()."""
        if c.amount is None:
            problems.add("amount", f"the amount of a {c.charge} line is empty.")
            return
        kind = FEE if c.charge == FEE else c.charge
        line = UsageLine(c.line, c.start, c.end or c.start, c.node, 0, 0, None, c.amount, kind)
        line.currency, line.charge = c.currency, c.charge
        (self.bill.lines if kind == FEE else self.bill.other).append(line)

    def extra(self, c: _Common, kind: str, problems: _Problems) -> None:
        """Usage that is not GPU time (egress, storage, CPU cores): visible, priced as billed."""
        if c.amount is None:
            problems.add("amount", "the amount of a non-GPU usage line is empty.")
            return
        line = UsageLine(c.line, c.start, c.end or c.start, c.node, 0, 0, None, c.amount, kind)
        line.currency, line.charge = c.currency, USAGE
        self.bill.lines.append(line)

    def usage(self, row: dict[str, Any], c: _Common, problems: _Problems) -> None:
        unit = parse_unit(text=_text(row.get("unit")) or self.proposal.unit or "hours")
        meter = self.profile.meter(row, unit.seconds > 0)
        if meter.kind in (METER_EGRESS, OTHER):
            self.extra(c, EGRESS if meter.kind == METER_EGRESS else FEE, problems)
            return
        qty, rate, stated, exchange = (
            self.number(row, name, problems) for name in ("quantity", "rate", "gpus", "exchange")
        )
        if problems.items:
            return
        if qty is None:
            problems.add("quantity", "the quantity is empty.")
            return
        # A negative quantity (Azure's refunds, corrections and reservation adjustments write
        # one on a usage row) is read as billed: reconcile()'s negative rule lists it, never
        # priced as use, instead of the whole bill being refused.
        per_gpu = meter.kind == PER_GPU or unit.per_gpu
        gpus = self.gpus(c, meter.instance_type, stated, per_gpu)
        if gpus is None:
            return  # asked: see `questions`
        if gpus == 0 and not per_gpu:  # answered: not a GPU instance
            self.extra(c, FEE, problems)
            return
        factor = 1 if per_gpu else gpus
        quantity = (qty * unit.seconds * factor + 30) // 60  # micro-GPU-minutes
        if c.covered:
            rate = None  # the on-demand or 0.00 rate billed; the effective cost says what it cost
        if rate is not None and exchange is not None and exchange not in (0, MICRO):
            rate = (rate * exchange + MICRO // 2) // MICRO  # pricing currency -> billing
        end = self.end(c, abs(qty) * unit.seconds // MICRO // (gpus if per_gpu and gpus else 1))
        if end < c.start:
            problems.add("period_end", "the period ends before it starts.")
            return
        if (
            per_gpu
            and not gpus
            and quantity > 0
            and end > c.start
            and (quantity * 60) % ((end - c.start) * MICRO) == 0
        ):
            gpus = quantity * 60 // ((end - c.start) * MICRO)  # GPU-hours over wall hours
        priced = self.per_gpu_hour(rate, c.amount, quantity, unit.seconds * factor)
        if priced is None and c.amount is None:
            problems.add("amount", "the line has neither a rate nor an amount.")
            return
        line = UsageLine(c.line, c.start, end, c.node, gpus, quantity, priced, c.amount, GPU)
        line.currency, line.charge, line.instance_type = c.currency, USAGE, meter.instance_type
        line.cover = c.cover
        self.bill.lines.append(line)

    def end(self, c: _Common, wall: int) -> int:
        """The file's end; else the date's whole day (daily exports); else the start plus the
        line's wall-clock time."""
        if c.end is not None:
            return c.end
        return c.start + (DAY if self.profile.whole_day else wall)

    def per_gpu_hour(
        self, rate: int | None, amount: int | None, quantity: int, unit_seconds: int
    ) -> int | None:
        """The rate per GPU-hour: as billed when the header says so; per the quantity's unit
        (an instance-hour, 10 hours, a GPU-second) converted; none billed: amount / GPU-hours,
        which the rate rule then checks like any other."""
        if rate is None:
            if amount is None or quantity == 0:
                return None
            if quantity < 0:  # a credited quantity: its amount is credited at the same rate
                amount, quantity = -amount, -quantity
            return (amount * HOUR_MICRO * 2 + quantity) // (2 * quantity)
        if self.rate_per_gpu_hour:
            return rate
        return (rate * 3600 * 2 + unit_seconds) // (2 * unit_seconds)

    def gpus(self, c: _Common, instance_type: str, stated: int | None, per_gpu: bool) -> int | None:
        """GPUs per instance: the line's own count, the catalogue (or the user's answers), the
        contract's node size for lines naming no type. An unknown type is asked, never guessed:
        None. A per-GPU quantity needs no count (0 when none is known)."""
        if stated is not None and stated > 0 and stated % MICRO == 0:
            return stated // MICRO
        known = lookup(name=instance_type, extra=self.settings.answers) if instance_type else None
        if known is not None:
            return known.gpus
        if per_gpu or (not instance_type and self.settings.node_gpus):
            return self.settings.node_gpus or 0
        self.asked.setdefault(instance_type, []).append(c.line)
        return None

    def questions(self) -> list[Question]:
        out = []
        parquet = self.detected.kind == "parquet"
        for name, lines in self.asked.items():
            what = f"one '{name}' instance" if name else "one instance of these lines"
            first = (
                f"row {', '.join(row_name(n)[4:] for n in lines[:5])}"
                if parquet
                else f"line {', '.join(str(n) for n in lines[:5])}"
            )
            ask = (
                f"How many GPUs does {what} have? {len(lines)} {'row' if parquet else 'line'}(s) "
                f"bill it by the hour (first: {first}). Answer to price them as "
                "GPU-hours, or 0 if it has no GPU (its lines are then fees)."
            )
            out.append(Question(name, tuple(lines[:20]), len(lines), ask))
        return out


def _locale(sheet: Sheet, proposal: Proposal, over: Overrides) -> tuple[str, str]:
    """The decimal mark and date order from the sampled rows' number and date cells, unless
    the user said which."""
    index = {f: sheet.headers.index(h) for f, h in proposal.columns.items()}

    def cells(names: tuple[str, ...]) -> list[Any]:
        wanted = [index[n] for n in names if n in index]
        return [cells[i] for _, cells in sheet.sample for i in wanted if i < len(cells)]

    decimal = over.decimal or detect_decimal(
        samples=cells(_NUMBERS), delimiter=sheet.detected.delimiter
    )
    order = over.date_order or detect_date_order(
        samples=cells(("period_start", "period_end")), default=proposal.profile.date_order
    )
    if decimal not in (DOT, COMMA):
        raise UsageError(f"the decimal mark must be '.' or ',', not '{decimal}'.")
    return decimal, order


def _no_costs(profile: Profile, where: str) -> UsageError:
    """A file that states no cost at all, refused once rather than on every line."""
    return UsageError(
        f"this {profile.label} export states no cost: its cost columns "
        f"({', '.join(profile.costs)}) {where}. "
        "A usage-only export (as CoreWeave's FOCUS preview is) cannot be reconciled against "
        "the contract; export the bill with its costs, or upload the invoice's lines."
    )


def _check(proposal: Proposal, headers: list[str]) -> None:
    missing = [f for f in ("period_start", "quantity") if f not in proposal.columns]
    if "amount" not in proposal.columns and "rate" not in proposal.columns:
        if proposal.profile.costs and not missing:
            present = set(headers)
            absent = [c for c in proposal.profile.costs if c not in present]
            if len(absent) == len(proposal.profile.costs):
                raise _no_costs(proposal.profile, "are absent")
        missing.append("amount or rate")
    if missing:
        raise UsageError(
            f"no column holds: {', '.join(missing)} (read as {proposal.profile.label}). "
            f"The file's headers are: {', '.join(h for h in headers if h)}.",
            line=1,
        )


def read_bill(
    data: bytes,
    *,
    name: str = "",
    overrides: Overrides | None = None,
    columns: dict[str, str] | None = None,
    node_gpus: int | None = None,
    answers: dict[str, int] | None = None,
    max_errors: int = MAX_ERRORS,
) -> Bill:
    """Read a usage or cost file: find its header and dialect, recognise its profile, propose
    its columns (or take `columns`, our field -> header, as the user set them), and read every
    line. `node_gpus` is the contract's GPUs per node, used for lines naming no instance type;
    `answers` the user's answers to earlier questions (instance type -> GPUs). A file that
    cannot be read at all raises UsageError; bad lines are in `Bill.errors`."""
    over = overrides or Overrides()
    sheet = read_sheet(data, name=name, known=is_known_header, overrides=over)
    proposal = propose(headers=sheet.headers, profile=over.profile)
    if columns is not None:
        unknown = [h for h in columns.values() if h and h not in sheet.headers]
        if unknown:
            raise UsageError(f"'{unknown[0]}' is not a header of this file.", line=1)
        proposal = replace(proposal, columns={f: h for f, h in columns.items() if h})
    _check(proposal, sheet.headers)
    decimal, order = _locale(sheet, proposal, over)
    settings = _Settings(decimal, order or ISO, node_gpus, dict(answers or {}), max_errors)
    reader = _Reader(sheet, proposal, settings)
    for line, cells in sheet.rows:
        if not reader.row(line, cells):
            break
    if reader.read and not reader.costed and proposal.profile.costs:
        raise _no_costs(proposal.profile, "are empty on every line")
    bill = reader.bill
    bill.detected = replace(
        sheet.detected,
        decimal=decimal,
        date_order=order,
        profile=proposal.profile.name,
        total_rows=tuple(reader.totals),
    )
    bill.questions = reader.questions()
    return bill
