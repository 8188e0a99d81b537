"""`manage.py check_evidence --fixture SPEC.json FILE...`: run the acceptance checks."""

from __future__ import annotations

import json
import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from engine.evidence.checks import gate, run_checks
from engine.evidence.checks.cli import (
    UnusableInput,
    format_table,
    items_from_args,
    load_fixture,
    results_json,
)


class Command(BaseCommand):
    help = (
        "Check burn-in evidence files against a fixture spec and print the checks. "
        "Each FILE's node comes from a NODE:path prefix (e.g. node-a:ibstat.txt), else from "
        "its parent directory name (node-a/ibstat.txt); files in the current directory or in a "
        "directory named all/allocation/whole/evidence/cluster or after an evidence kind "
        "(e.g. nccl-tests/) cover the whole allocation. "
        "Node-subset nccl-tests runs use labels joined by '+' (node-a+node-b:pair.txt). "
        "Exit 0 when the gate passes, 1 when it fails, 2 on unusable input."
    )

    # Offline: reads files, never the database or the URLs, so the system checks (which
    # import every view) would only double its start-up time.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--fixture", required=True, help="fixture spec JSON file")
        parser.add_argument("files", nargs="+", help="evidence files, optionally NODE:path")
        parser.add_argument("--json", action="store_true", help="print JSON instead of a table")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            spec = load_fixture(options["fixture"])
            items = items_from_args(options["files"])
        except UnusableInput as exc:
            sys.stderr.write(f"{exc}\n")
            sys.exit(2)
        results = run_checks(spec, items)
        verdict = gate(results)
        if options["json"]:
            self.stdout.write(json.dumps(results_json(results, verdict), allow_nan=False))
        else:
            self.stdout.write(format_table(results, verdict))
        if not verdict.passed:
            sys.exit(1)
