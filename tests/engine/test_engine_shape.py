"""The engine's house limits, checked on every run: no function over 60 lines and no module
over 500, so a rule stays readable where the verdicts are made."""

from __future__ import annotations

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "engine"
MAX_FUNCTION_LINES = 60
MAX_MODULE_LINES = 500


def test_no_engine_function_or_module_over_the_limits() -> None:
    too_long = []
    for path in sorted(ENGINE.rglob("*.py")):
        source = path.read_text()
        name = path.relative_to(ENGINE.parent)
        if (lines := len(source.splitlines())) > MAX_MODULE_LINES:
            too_long.append(f"{name}: {lines} lines")
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    too_long.append(f"{name}:{node.lineno} {node.name}(): {length} lines")
    assert not too_long, "\n".join(too_long)
