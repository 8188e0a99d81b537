"""Recovery criterion 4, loss continuity: from a training log, does the resumed run continue
the step counter from the checkpoint, with the loss where it was?

Accepted logs (one file, any mix of lines; lines that say nothing about step and loss are
skipped):
- a CSV with a header naming `step` and `loss` (and any other columns, e.g. `time`);
- Megatron-LM: ` iteration     1200/    5000 | consumed samples: … | lm loss: 2.345E+00 | …`;
- common loop output: `step 1200 … loss 2.345`, `step=1200 loss=2.345`, `step: 1200, loss: 2.345`.
Resume markers (`successfully loaded checkpoint from … at iteration 1200`, `Resuming from
checkpoint global_step1200`, `Continuing training from global step 1200`) and a step counter that
goes back both mark where the resumed run starts.

Pure Python; errors are `FailureInputError`s naming the file and the line.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import pairwise
from statistics import median
from typing import Any

from .errors import FailureInputError

PASS, FAIL, WAITING = "pass", "fail", "waiting"

# The agreed tolerance when the terms name none: 5 % relative. Resuming from an intact checkpoint
# puts the first logged loss within batch-to-batch noise of the loss at the checkpoint step (for
# pre-training past the first few hundred steps, typically 1–3 %); a stale or wrong checkpoint,
# reset optimizer state or a restarted LR warm-up shows as a jump of 10 % or more. 5 % sits
# between the two and is the figure the terms' template proposes.
DEFAULT_LOSS_TOLERANCE_PCT = 5.0
TOLERANCE_TERM = "recovery_loss_tolerance_pct"

_NUM = r"(-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|nan|-?inf)"
# Steps are capped at 18 digits: int() refuses 4,300+ digit tokens, and no run takes 10^18 steps.
_STEP_RE = re.compile(r"(?<![\w.])(?:iteration|global_step|step|iter)\s*[:=]?\s*(\d{1,18})\b", re.I)
_LOSS_RE = re.compile(r"(?<![\w.])(?:lm[ _]|train[ _])?loss\s*[:=]?\s*" + _NUM, re.I)
_RESUME_RE = re.compile(
    r"(?:resum\w*|load(?:ed|ing)?\s+(?:the\s+)?checkpoint|continu\w*\s+training)"
    r".*?(?:global[_ ]step|iteration|iter|step)[\s_:=]*(\d{1,18})\b",
    re.I,
)


@dataclass(frozen=True, slots=True)
class LossPoint:
    step: int
    loss: float
    line: int


@dataclass(frozen=True, slots=True)
class LossLog:
    points: tuple[LossPoint, ...]
    # (line, step) of each resume marker; (line, None) where the step counter went back.
    resumes: tuple[tuple[int, int | None], ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "points": [[p.step, p.loss if math.isfinite(p.loss) else str(p.loss), p.line]
                       for p in self.points],
            "resumes": [list(r) for r in self.resumes],
        }  # fmt: skip


def _float(token: str) -> float:
    return float(token.lower())


def parse_loss_log(data: bytes | str, *, name: str = "training log") -> LossLog:
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    lines = text.lstrip("\ufeff").splitlines()
    first = next(((n, ln) for n, ln in enumerate(lines, 1) if ln.strip()), None)
    if first is None:
        raise FailureInputError(f"{name}: the training log is empty")
    header = [c.strip().strip('"').lower() for c in first[1].split(",")]
    if "step" in header and "loss" in header:
        points = _from_csv(lines, first[0], header, name)
        resumes: list[tuple[int, int | None]] = []
    else:
        points, resumes = _from_log(lines)
    if not points:
        raise FailureInputError(
            f"{name}: no step and loss found; expected a CSV with step and loss columns, "
            "Megatron 'iteration N/ M | … | lm loss: X |' lines or 'step N … loss X' lines"
        )
    marked = {line for line, _ in resumes}
    for prev, point in pairwise(points):
        after_marker = any(prev.line < m < point.line for m in marked)
        if point.step <= prev.step and not after_marker:
            resumes.append((point.line, None))
    return LossLog(tuple(points), tuple(sorted(resumes)))


def _from_csv(lines: list[str], start: int, header: list[str], name: str) -> list[LossPoint]:
    i_step, i_loss = header.index("step"), header.index("loss")
    out: list[LossPoint] = []
    for n, line in enumerate(lines[start:], start=start + 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        cells = [c.strip().strip('"') for c in line.split(",")]
        if len(cells) != len(header):
            raise FailureInputError(
                f"{name}: line {n}: expected {len(header)} values ({', '.join(header)}), "
                f"found {len(cells)}"
            )
        try:
            step = int(cells[i_step])
        except ValueError:
            raise FailureInputError(
                f"{name}: line {n}: step must be a whole number, found {cells[i_step][:30]!r}"
            ) from None
        try:
            loss = _float(cells[i_loss])
        except ValueError:
            raise FailureInputError(
                f"{name}: line {n}: loss must be a number, found {cells[i_loss][:30]!r}"
            ) from None
        out.append(LossPoint(step, loss, n))
    return out


def _from_log(lines: list[str]) -> tuple[list[LossPoint], list[tuple[int, int | None]]]:
    points: list[LossPoint] = []
    resumes: list[tuple[int, int | None]] = []
    for n, line in enumerate(lines, start=1):
        marker = _RESUME_RE.search(line)
        if marker:
            resumes.append((n, int(marker.group(1))))
            continue
        m_step, m_loss = _STEP_RE.search(line), _LOSS_RE.search(line)
        if m_step and m_loss:
            points.append(LossPoint(int(m_step.group(1)), _float(m_loss.group(1)), n))
    return points, resumes


# ---------------------------------------------------------------------------------------------


def loss_tolerance(terms: Mapping[str, Any]) -> float:
    """The agreed tolerance in percent from a terms snapshot, else the default."""
    value = terms.get(TOLERANCE_TERM)
    try:
        number = float(value) if value not in (None, "") else None
    except (TypeError, ValueError):
        number = None
    return number if number is not None and number >= 0 else DEFAULT_LOSS_TOLERANCE_PCT


def _stride(points: list[list[Any]]) -> int:
    gaps = [b[0] - a[0] for a, b in pairwise(points) if b[0] > a[0]]
    return max(1, int(median(gaps))) if gaps else 1


def _num(value: Any) -> float:
    return float(value) if not isinstance(value, str) else float(value.lower())


# (status, measured): a criterion's answer before the expectation is added to it.
_Verdict = tuple[str, str]


def check_loss(
    log: Mapping[str, Any] | None, *, checkpoint_step: int | None, tolerance_pct: float
) -> tuple[str, str, str]:
    """(status, measured, expected) for "training loss continues from the checkpoint".

    `log` is `LossLog.to_json()`; `checkpoint_step` the incident's checkpoint evidence, else the
    log's own resume marker is used."""
    expected = (
        f"steps continue from checkpoint step {checkpoint_step}"
        if checkpoint_step is not None
        else "steps continue from the checkpoint step"
    ) + f"; loss at resume within {tolerance_pct:g}% of the loss at that step"
    if not log:
        return WAITING, "no training log uploaded", expected
    resume = _around_resume(log)
    if not resume.after:
        return WAITING, "the log shows no step after the resume", expected
    found = _checkpoint(resume, checkpoint_step)
    if not isinstance(found, _Checkpoint):
        return (*found, expected)
    status, measured = _steps_continue(resume, found) or _loss_continues(
        resume, found, tolerance_pct
    )
    return status, measured, expected


@dataclass(frozen=True, slots=True)
class _Resume:
    """The logged points (step, loss, line) either side of the last resume, and the step the
    resume marker names (None without a marker, or where the step counter went back)."""

    before: list[list[Any]]
    after: list[list[Any]]
    marked: int | None
    has_resume: bool
    stride: int  # the log's usual step gap


def _around_resume(log: Mapping[str, Any]) -> _Resume:
    points = list(log.get("points") or [])
    resumes = [tuple(r) for r in log.get("resumes") or []]
    if not resumes:
        return _Resume([], points, None, False, _stride(points))
    line, marked = resumes[-1]
    # A marker line is its own; a counter going back is marked on the first resumed point.
    before = [p for p in points if p[2] < line]
    after = [p for p in points if p[2] > line or (marked is None and p[2] == line)]
    return _Resume(before, after, marked, True, _stride(points))


@dataclass(frozen=True, slots=True)
class _Checkpoint:
    step: int
    source: str  # which evidence named the step


def _checkpoint(resume: _Resume, checkpoint_step: int | None) -> _Checkpoint | _Verdict:
    """The checkpoint step the resumed run must continue from: the incident's evidence, the
    log's resume marker, else the step before the counter restarted."""
    if checkpoint_step is not None:
        return _Checkpoint(checkpoint_step, "the checkpoint listing")
    if resume.marked is not None:
        return _Checkpoint(int(resume.marked), "the log's resume marker")
    first, before = resume.after[0], resume.before
    if not before:
        return (
            WAITING,
            "the checkpoint step is not known: upload the checkpoint listing, or a log "
            "that shows the resume",
        )
    if before[-1][0] > resume.stride and first[0] <= resume.stride:
        return (
            FAIL,
            f"the step counter restarted from {first[0]} (line {first[2]}) after step "
            f"{before[-1][0]}: the run started over instead of resuming",
        )
    return _Checkpoint(first[0] - 1, "the step counter's restart")


def _steps_continue(resume: _Resume, ckpt: _Checkpoint) -> _Verdict | None:
    """None when the resumed run's first step follows the checkpoint step within one stride."""
    first, step, source, stride = resume.after[0], ckpt.step, ckpt.source, resume.stride
    if not resume.has_resume and first[0] <= step:
        if first[0] <= stride < step:
            return (
                FAIL,
                f"the log starts over at step {first[0]} (line {first[2]}) although checkpoint "
                f"step {step} ({source}) exists: the run started again instead of resuming",
            )
        return (
            WAITING,
            f"the log shows no resume: steps {first[0]} to {resume.after[-1][0]} with no resume "
            f"marker and no step counter going back; upload the resumed run's log",
        )
    if first[0] <= step:
        return (
            FAIL,
            f"the resumed run starts at step {first[0]} (line {first[2]}), not after checkpoint "
            f"step {step} ({source}): the step counter restarted",
        )
    if first[0] > step + stride:
        return (
            FAIL,
            f"the resumed run starts at step {first[0]} (line {first[2]}); checkpoint step "
            f"{step} ({source}) is followed by a gap of {first[0] - step - 1} steps",
        )
    return None


def _loss_continues(resume: _Resume, ckpt: _Checkpoint, tolerance_pct: float) -> _Verdict:
    step, stride = ckpt.step, resume.stride
    at_ckpt = [p for p in resume.before if step - stride < p[0] <= step]
    if not at_ckpt:
        return (
            WAITING,
            f"the log has no loss at checkpoint step {step}: upload a log that also covers "
            "the run before the failure",
        )
    ref, got = at_ckpt[-1], resume.after[0]
    ref_loss, got_loss = _num(ref[1]), _num(got[1])
    if not math.isfinite(ref_loss):
        return FAIL, f"loss at checkpoint step {ref[0]} is {ref_loss} (line {ref[2]})"
    if not math.isfinite(got_loss):
        return FAIL, f"loss at resume is {got_loss} (step {got[0]}, line {got[2]})"
    delta = (got_loss - ref_loss) / abs(ref_loss) * 100 if ref_loss else math.inf
    text = (
        f"loss {ref_loss:.4g} at step {ref[0]} (checkpoint, {ckpt.source}) → {got_loss:.4g} at "
        f"step {got[0]} (resume): {delta:+.1f}%"
    )
    if abs(delta) > tolerance_pct:
        return FAIL, f"{text}, over the {tolerance_pct:g}% agreed"
    return PASS, text
