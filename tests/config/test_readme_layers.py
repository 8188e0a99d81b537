"""The README's layer table names every app of the layers contract, top to bottom in the
contract's order, so a newcomer reading it learns the stack lint-imports enforces."""

from __future__ import annotations

import re

from tests.config.test_template_layers import ROOT, layer_ranks

ROW = re.compile(r"^\| (?:top|bottom|) ?\| (?P<paths>[^|]+) \|", re.MULTILINE)


def _table_apps(ranks: dict[str, int]) -> list[str]:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## How it is built", 1)[1].split("\n\n| layer |", 1)[1]
    table = section.split("\n\n", 1)[0]
    apps: list[str] = []
    for match in ROW.finditer(table):
        apps += [a for a in re.findall(r"`([a-z_]+)/`", match["paths"]) if a in ranks]
    return apps


def test_every_layered_app_has_a_row_in_the_contracts_order() -> None:
    ranks = layer_ranks()
    listed = _table_apps(ranks)
    assert sorted(listed) == sorted(ranks), set(ranks) ^ set(listed)
    shown = [ranks[app] for app in listed]
    assert shown == sorted(shown, reverse=True), listed
