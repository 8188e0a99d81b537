"""`dcgmi diag -r N` boxed tables (DCGM 2.x/3.x/4.x) and `dcgmi diag -j` JSON.

Messages in Warning/Error/Info rows are hard-wrapped at the cell width, mid-word: the raw cell
chunks are concatenated before whitespace is collapsed. DCGM 4 prints per-GPU rows
(`GPU0: Pass`); DCGM 3 splits mixed results (`Pass - GPUs: 1, 2` then `Fail - GPU: 0`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, ClassVar

from engine.evidence.parsers.base import DcgmiError, decode_text, number_problem
from engine.evidence.parsers.header import EvidenceOrigin
from engine.evidence.parsers.pci_ids import gpu_model, model_token

KIND = "dcgmi-diag"
RESULTS = ("Pass", "Fail", "Warn", "Skip")
_SEVERITY = {"Fail": 3, "Warn": 2, "Pass": 1, "Skip": 0}

_CATEGORY_RE = re.compile(r"^[|+]-+\s+([A-Za-z][\w ]*?)\s+-+[+|]")
_RESULT_RE = re.compile(
    r"^(Pass|Fail|Warn|Skip|Warning|Passed|Failed|Skipped)\b(?:\s*-\s*(All|GPUs?:\s*[\d,\s]+))?",
    re.I,
)
_GPU_RESULT_RE = re.compile(r"^GPU\s*(\d+)\s*:\s*(Pass|Fail|Warn|Skip)\w*", re.I)
_LEVEL_HINT_RE = re.compile(r"(?:Run Level|(?<![\w-])(?:--run|-r))\s*[:=|]?\s*([1-4])\b", re.I)
_WRAP = 45
_ORPHAN_RESULT = {"Warning": "Warn", "Error": "Fail", "Info": "Pass"}
_MESSAGE_ROWS = {"Warning": "warning", "Error": "error", "Info": "info"}
_METADATA_KEYS = {
    "DCGM Version": "dcgm_version",
    "Driver Version Detected": "driver_version",
    "GPU Device IDs Detected": "gpu_device_ids",
}
# Tests a run level adds (names normalised: lower case, spaces for underscores).
_LEVEL_TESTS = {
    4: {"memtest", "pulse test", "pulse_test"},
    3: {
        "diagnostic",
        "sm stress",
        "targeted stress",
        "targeted power",
        "memory bandwidth",
        "eud test",
        "eud",
        "nvbandwidth",
    },
    2: {"pcie", "gpu memory", "memory", "context create"},
}


@dataclass(frozen=True)
class DcgmiMessage:
    severity: str  # "warning" | "error" | "info"
    text: str
    line: int | None = None


@dataclass(frozen=True)
class DcgmiTest:
    name: str
    result: str  # Pass | Fail | Warn | Skip
    category: str | None = None
    details: str = ""
    gpus: dict[str, str] = field(default_factory=dict)  # "0" -> "Pass"
    messages: tuple[DcgmiMessage, ...] = ()
    line: int | None = None


@dataclass(frozen=True)
class DcgmiResult:
    KIND: ClassVar[str] = KIND
    tests: tuple[DcgmiTest, ...]
    level: int | None
    level_source: str | None  # "hint" | "inferred"
    dcgm_version: str | None = None
    driver_version: str | None = None
    gpu_device_ids: tuple[str, ...] = ()
    complete: bool = False  # closing border seen
    source_format: str = "table"
    # GPUs the run covered: the device ids DCGM detected, or the per-GPU results when it
    # printed none; None when the file shows neither ("Pass - All" without its metadata).
    gpu_count: int | None = None
    # Models by the PCI device ids ("H200", "A10G"); "unknown <id>" for an id not listed.
    gpu_models: tuple[str, ...] = ()
    # The collector's header, when the file has one (engine/evidence/parsers/header.py).
    origin: EvidenceOrigin | None = field(default=None, metadata={"json": False})


def detect(text: str) -> float:
    head = text[:50_000]
    if head.lstrip().startswith("{"):
        return 0.95 if "test_categories" in head else 0.0
    if "| Diagnostic" in head and "| Result" in head:
        return 0.95
    if re.search(r"^\|\s*[\w /]+\|\s*(Pass|Fail|Skip|Warn)\b", head, re.M):
        return 0.8
    if re.search(r"^[|+]-+\s+(Metadata|Deployment|Integration|Hardware|Stress)\s+-+", head, re.M):
        return 0.8
    return 0.0


def _normalise_result(raw: str) -> str:
    word = raw.strip().lower()
    if word.startswith("pass"):
        return "Pass"
    if word.startswith("fail"):
        return "Fail"
    if word.startswith("warn"):
        return "Warn"
    return "Skip"


def _worst(results: list[str]) -> str:
    if not results:
        return "Skip"
    if all(r == "Skip" for r in results):
        return "Skip"
    return max(results, key=lambda r: _SEVERITY[r])


def _infer_level(names: list[str]) -> int | None:
    if not names:
        return None
    level = 1
    for name in names:
        norm = name.lower().replace("_", " ")
        for lvl, tests in _LEVEL_TESTS.items():
            if norm in tests or name.lower() in tests:
                level = max(level, lvl)
    return level


@dataclass
class _Test:
    name: str
    category: str | None
    line: int
    results: list[str] = field(default_factory=list)
    gpus: dict[str, str] = field(default_factory=dict)
    messages: list[tuple[str, list[str], int]] = field(default_factory=list)

    def freeze(self) -> DcgmiTest:
        results = list(self.results) or list(self.gpus.values())
        messages = tuple(
            DcgmiMessage(sev, " ".join("".join(chunks).split()), line)
            for sev, chunks, line in self.messages
        )
        return DcgmiTest(
            name=self.name,
            result=_worst(results),
            category=self.category,
            details=" ".join(m.text for m in messages),
            gpus=dict(self.gpus),
            messages=messages,
            line=self.line,
        )


def _apply_result(test: _Test, cell: str) -> bool:
    m = _RESULT_RE.match(cell.strip())
    if m is None:
        return False
    result = _normalise_result(m.group(1))
    test.results.append(result)
    scope = m.group(2) or ""
    if scope.upper().startswith("GPU"):
        for gpu in re.findall(r"\d+", scope):
            test.gpus[gpu] = result
    return True


def _cells(s: str) -> tuple[str, str, str] | None:
    """(left cell, right cell as printed, right cell stripped) of a `| … | … |` row."""
    parts = s.split("|")
    if len(parts) < 3:
        return None
    left = parts[1].strip()
    # Keep the raw chunk (minus the border padding): a wrap can fall on a space.
    right_raw = "|".join(parts[2:-1]) if s.endswith("|") and len(parts) > 3 else parts[2]
    right_raw = right_raw.removeprefix(" ")
    if s.endswith("|"):
        right_raw = right_raw.removesuffix(" ")
        # DCGM wraps at 45 characters inside a 46-wide cell: drop the pad, keep content.
        if len(right_raw) > _WRAP and not right_raw[_WRAP:].strip():
            right_raw = right_raw[:_WRAP]
    return left, right_raw, right_raw.strip()


@dataclass
class _Table:
    """The dcgmi diag table as it is read: tests so far, the category and test being read, and
    the message a wrapped line continues."""

    tests: list[_Test] = field(default_factory=list)
    metadata: dict[str, str] = field(default_factory=dict)
    category: str | None = None
    current: _Test | None = None
    message: list[str] | None = None  # chunks of the message being continued
    complete: bool = False
    saw_table: bool = False

    def read(self, s: str, lineno: int) -> None:
        """One line of the table (starting with '|' or '+')."""
        self.saw_table = True
        m_cat = _CATEGORY_RE.match(s)
        if m_cat:
            self.category, self.message = m_cat.group(1).strip(), None
            return
        if s.startswith("+") or set(s) <= set("|+-= "):
            self.complete = self.complete or (s.startswith("+") and self.current is not None)
            self.message = None
            return
        cells = _cells(s)
        if cells is None:
            return
        left, right_raw, right = cells
        if left in ("Diagnostic",) and right.startswith("Result"):
            return
        if left in _METADATA_KEYS:
            self.metadata[_METADATA_KEYS[left]] = right
            self.message = None
        elif left in _MESSAGE_ROWS:
            self.read_message(left, right_raw, lineno)
        elif not left:
            self.read_continuation(right, right_raw)
        else:
            self.read_test(left, right, lineno)

    def read_message(self, left: str, right_raw: str, lineno: int) -> None:
        if self.current is None:
            # A message with its test row cut off (pasted fragments): keep it as a test.
            name = f"{self.category or 'General'} {left}"
            self.current = _Test(name=name, category=self.category, line=lineno)
            self.current.results.append(_ORPHAN_RESULT[left])
            self.tests.append(self.current)
        self.message = [right_raw]
        self.current.messages.append((_MESSAGE_ROWS[left], self.message, lineno))

    def read_continuation(self, right: str, right_raw: str) -> None:
        """A row with an empty left cell: a per-GPU result, a further result or wrapped text."""
        if self.current is None:
            return
        m_gpu = _GPU_RESULT_RE.match(right)
        if m_gpu:
            self.current.gpus[m_gpu.group(1)] = _normalise_result(m_gpu.group(2))
            self.message = None
        elif self.message is None and _apply_result(self.current, right):
            pass
        elif self.message is not None:
            self.message.append(right_raw)

    def read_test(self, left: str, right: str, lineno: int) -> None:
        self.current = _Test(name=left, category=self.category, line=lineno)
        self.message = None
        if _apply_result(self.current, right):
            self.tests.append(self.current)
        elif self.category and self.category.lower() == "metadata":
            self.metadata[left] = right
            self.current = None
        else:
            raise DcgmiError(
                f"expected Pass/Fail/Warn/Skip for test {left!r}, found {right[:30]!r}",
                line=lineno,
                kind=KIND,
            )


def parse(text: str | bytes) -> DcgmiResult:
    text = decode_text(text, kind=KIND, error=DcgmiError)
    if text.lstrip().startswith("{"):
        return _parse_json(text)
    table = _Table()
    for lineno, line in enumerate(text.split("\n"), start=1):
        s = line.rstrip()
        if s.startswith(("|", "+")):
            table.read(s, lineno)
    if not table.saw_table:
        raise DcgmiError("no dcgmi diag result table found", kind=KIND)
    frozen = tuple(t.freeze() for t in table.tests)
    if not frozen:
        raise DcgmiError("dcgmi diag table without any test rows", kind=KIND)
    return _result(frozen, table.metadata, text, table.complete, "table")


def _result(
    tests: tuple[DcgmiTest, ...], metadata: dict[str, str], text: str, complete: bool, fmt: str
) -> DcgmiResult:
    # A skipped test did not run (DCGM 3.0-3.3 skip every test past level 1 on GPUs its SKU
    # file does not allow), so only the tests that ran say which level was reached.
    reached = _infer_level([t.name for t in tests if t.result != "Skip"])
    skipped = _infer_level([t.name for t in tests if t.result == "Skip"])
    hint = _LEVEL_HINT_RE.search(text[:4096])
    level: int | None = reached
    source: str | None = "inferred" if reached is not None else None
    # The -r N asked for is the level reached unless that level's own tests were all skipped.
    if hint and not (reached is not None and skipped is not None and skipped > reached):
        level, source = int(hint.group(1)), "hint"
    elif hint:
        level = min(int(hint.group(1)), reached or 1)
    ids = metadata.get("gpu_device_ids", "")
    device_ids = tuple(i.strip() for i in ids.split(",") if i.strip())
    indices = {gpu for t in tests for gpu in t.gpus}
    count = len(device_ids) or len(indices) or None
    models = sorted(
        {model_token(name) if (name := gpu_model(i)) else f"unknown {i}" for i in device_ids}
    )
    return DcgmiResult(
        tests=tests,
        level=level,
        level_source=source,
        dcgm_version=metadata.get("dcgm_version"),
        driver_version=metadata.get("driver_version"),
        gpu_device_ids=device_ids,
        complete=complete,
        source_format=fmt,
        gpu_count=count,
        gpu_models=tuple(models),
    )


def _find_categories(doc: Any) -> tuple[list[Any], dict[str, Any]]:
    """Locate test_categories in DCGM 3.x ({"DCGM GPU Diagnostic": {...}}) or 4.x documents."""
    if isinstance(doc, dict):
        if isinstance(doc.get("test_categories"), list):
            return doc["test_categories"], doc
        for value in doc.values():
            cats, owner = _find_categories(value)
            if cats:
                return cats, owner
    return [], {}


def _parse_json(text: str) -> DcgmiResult:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DcgmiError(f"invalid dcgmi JSON: {exc.msg}", line=exc.lineno, kind=KIND) from None
    except RecursionError:
        raise DcgmiError("dcgmi JSON nests too deeply", kind=KIND) from None
    except ValueError as exc:  # an integer literal past int()'s digit limit
        raise DcgmiError(f"invalid dcgmi JSON: {number_problem(exc)}", kind=KIND) from None
    categories, owner = _find_categories(doc)
    if not categories:
        raise DcgmiError('dcgmi JSON without "test_categories"', kind=KIND)
    tests: list[DcgmiTest] = []
    for cat in categories:
        if not isinstance(cat, dict):
            continue
        for t in cat.get("tests") or []:
            if isinstance(t, dict):
                tests.append(_json_test(t, str(cat.get("category", "")) or None))
    meta_src = doc.get("metadata") if isinstance(doc, dict) else None
    metadata: dict[str, str] = {}
    for src in (owner, meta_src if isinstance(meta_src, dict) else {}):
        for key, target in (*_METADATA_KEYS.items(), ("version", "dcgm_version")):
            if key in src and isinstance(src[key], str | int | float):
                metadata.setdefault(target, str(src[key]))
    if not tests:
        raise DcgmiError("dcgmi JSON without any tests", kind=KIND)
    return _result(tuple(tests), metadata, text, True, "json")


def _json_test(t: dict[str, Any], category: str | None) -> DcgmiTest:
    gpus: dict[str, str] = {}
    results: list[str] = []
    messages: list[DcgmiMessage] = []
    for res in t.get("results") or []:
        if not isinstance(res, dict):
            continue
        status = _normalise_result(str(res.get("status", "Skip")))
        ids = res.get("gpu_ids", res.get("gpu_id", res.get("entity_id")))
        if str(res.get("entity_group", "GPU")).upper() != "GPU":
            ids = None  # DCGM 4 numbers CPUs (Grace) and switches apart from GPUs
        for gpu in re.findall(r"\d+", str(ids)) if ids is not None else []:
            gpus[gpu] = status
        results.append(status)
        for sev, key in (("warning", "warnings"), ("info", "info"), ("error", "errors")):
            value = res.get(key)
            items = value if isinstance(value, list) else [value] if value else []
            for item in items:
                msg = item.get("warning", item.get("message")) if isinstance(item, dict) else item
                if msg:
                    messages.append(DcgmiMessage(sev, " ".join(str(msg).split())))
    summary = t.get("test_summary")
    if isinstance(summary, dict) and summary.get("status"):
        overall = _normalise_result(str(summary["status"]))
    else:
        overall = _worst(results)
    return DcgmiTest(
        name=str(t.get("name", "")),
        result=overall,
        category=category,
        details=" ".join(m.text for m in messages),
        gpus=gpus,
        messages=tuple(messages),
    )
