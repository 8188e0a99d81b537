"""A small mixed-integer program and one call into HiGHS (`highspy`) to solve it.

The formulation adds variables and rows here, then asks for a solve with an objective; the
model is handed to HiGHS in one `passModel`, so building it costs a few list appends per term.
One HiGHS instance is kept per thread (a Celery worker's thread included): constructing one
prints HiGHS's banner, which a worker's log need not repeat on every solve.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from time import perf_counter

import highspy

INF = highspy.kHighsInf
_ROWWISE = 2
_local = threading.local()


@dataclass(frozen=True)
class Outcome:
    """One solve: "optimal", "feasible" (stopped early with an allocation), "infeasible" or
    "none" (stopped early without one); the variables' values and the relative gap left."""

    status: str
    values: tuple[float, ...] = ()
    gap: float | None = None
    objective: float | None = None
    bound: float | None = None


@dataclass
class Program:
    """Columns with bounds and integrality, and rows `lower ≤ Σ coef·x ≤ upper`."""

    lower: list[float] = field(default_factory=list)
    upper: list[float] = field(default_factory=list)
    integer: list[int] = field(default_factory=list)
    starts: list[int] = field(default_factory=lambda: [0])
    index: list[int] = field(default_factory=list)
    value: list[float] = field(default_factory=list)
    row_lower: list[float] = field(default_factory=list)
    row_upper: list[float] = field(default_factory=list)
    unmeetable: bool = False

    def var(self, lower: float, upper: float, *, integer: bool) -> int:
        self.lower.append(lower)
        self.upper.append(upper)
        self.integer.append(1 if integer else 0)
        return len(self.lower) - 1

    def binary(self) -> int:
        return self.var(0.0, 1.0, integer=True)

    def fix(self, column: int, value: float) -> None:
        self.lower[column] = value
        self.upper[column] = value

    def row(self, terms: Mapping[int, float], lower: float = -INF, upper: float = INF) -> None:
        if not any(terms.values()):
            # Nothing to choose: the row holds or it does not (a lot no offer can serve).
            self.unmeetable |= not lower <= 0.0 <= upper
            return
        for column, coef in terms.items():
            if coef:
                self.index.append(column)
                self.value.append(coef)
        self.starts.append(len(self.index))
        self.row_lower.append(lower)
        self.row_upper.append(upper)


def _highs() -> highspy.Highs:
    solver = getattr(_local, "highs", None)
    if solver is None:
        solver = highspy.Highs()
        _local.highs = solver
    solver.clear()
    solver.setOptionValue("output_flag", False)
    return solver


def _load(program: Program, objective: list[float], *, maximise: bool) -> highspy.Highs:
    """This thread's HiGHS, cleared, single-threaded, holding `program` and `objective`."""
    solver = _highs()
    solver.setOptionValue("threads", 1)
    solver.passModel(
        len(program.lower),
        len(program.row_lower),
        len(program.index),
        _ROWWISE,
        -1 if maximise else 1,
        0.0,
        objective,
        program.lower,
        program.upper,
        program.row_lower,
        program.row_upper,
        program.starts[:-1],
        program.index,
        program.value,
        program.integer,
    )
    return solver


def run(
    program: Program,
    costs: Mapping[int, float],
    *,
    maximise: bool = False,
    time_limit_s: float,
    rel_gap: float,
    abs_gap: float = 1e-6,
    start: Mapping[int, float] | None = None,
) -> Outcome:
    """Solve `program` for the linear objective `costs`, within `time_limit_s` seconds.

    `start` is a partial allocation (column → value) HiGHS may complete into a first incumbent.
    """
    if program.unmeetable:
        return Outcome("infeasible")
    started = perf_counter()
    if time_limit_s <= 0:
        return Outcome("none")
    if not program.lower:
        return Outcome("optimal", (), 0.0, 0.0, 0.0)
    objective = [0.0] * len(program.lower)
    for column, coef in costs.items():
        objective[column] += coef
    solver = _load(program, objective, maximise=maximise)
    solver.setOptionValue("time_limit", float(time_limit_s))
    solver.setOptionValue("mip_rel_gap", rel_gap)
    solver.setOptionValue("mip_abs_gap", abs_gap)
    if start:
        solver.setSolution(len(start), list(start), list(start.values()))
    solver.run()
    outcome = _outcome(solver)
    if start and not _consistent(outcome, objective):
        # HiGHS 1.16 can map a start through presolve to a point whose objective is not the
        # one it reports (seen on parallel columns); the answer is then solved again cold.
        return run(
            program,
            costs,
            maximise=maximise,
            time_limit_s=time_limit_s - (perf_counter() - started),
            rel_gap=rel_gap,
            abs_gap=abs_gap,
        )
    return outcome


def _consistent(outcome: Outcome, objective: list[float]) -> bool:
    """Whether the reported objective is the objective of the values reported."""
    if not outcome.values or outcome.objective is None:
        return True
    achieved = sum(coef * value for coef, value in zip(objective, outcome.values, strict=True))
    return abs(achieved - outcome.objective) <= 1e-6 * max(1.0, abs(outcome.objective))


def _outcome(solver: highspy.Highs) -> Outcome:
    status = solver.getModelStatus()
    info = solver.getInfo()
    has_solution = info.primal_solution_status == 2
    if status == highspy.HighsModelStatus.kOptimal:
        kind = "optimal"
    elif status in (
        highspy.HighsModelStatus.kInfeasible,
        highspy.HighsModelStatus.kUnboundedOrInfeasible,
    ):
        return Outcome("infeasible")
    else:
        kind = "feasible" if has_solution else "none"
    if not has_solution:
        return Outcome(kind)
    values = tuple(solver.getSolution().col_value)
    return Outcome(
        kind,
        values,
        float(info.mip_gap),
        float(info.objective_function_value),
        float(info.mip_dual_bound),
    )
