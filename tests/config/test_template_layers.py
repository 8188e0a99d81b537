"""Templates stack the way the apps do: a lower app's template never reaches a higher app.

A template under ``templates/<app>/`` (or an app's own ``templates/`` folder) belongs to that
app. It may ``{% include %}`` or ``{% extends %}`` a template, ``{% load %}`` a tag library and
``{% url %}`` a view of its own app or of an app below it in ``.importlinter``'s layers contract;
apps on one layer (``a | b``) are independent and reach neither way. A higher app hands its panels
down as context or through a registry the lower app owns, so those references are dynamic
(``{% include panel.template %}``) and out of this scan's sight on purpose.

Templates outside any app's folder (``base.html``, the error pages, ``registration/``, ``pdf/``)
are shared chrome: they sit above every app, so the site navigation in ``base.html`` may link any
app's pages. Templates, tag libraries and URL names that no app of ours owns (Django's, DRF's)
are not layered.
"""

from __future__ import annotations

import configparser
import re
from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.template.backends.django import get_installed_libraries
from django.urls import URLPattern, URLResolver, get_resolver

ROOT = Path(settings.BASE_DIR)
TAG = re.compile(r"\{%\s*(include|extends|load|url)\s+(.*?)\s*%\}", re.DOTALL)
QUOTED = re.compile(r"""^(['"])([^'"]+)\1""")


def layer_ranks() -> dict[str, int]:
    """App → rank (0 = lowest), read from the layers contract that lint-imports enforces."""
    parser = configparser.ConfigParser()
    parser.read(ROOT / ".importlinter")
    layers = [line.strip() for line in parser["importlinter:contract:layers"]["layers"].split("\n")]
    ranks: dict[str, int] = {}
    for rank, layer in enumerate(reversed([line for line in layers if line])):
        for app in layer.split("|"):
            ranks[app.strip()] = rank
    return ranks


RANKS = layer_ranks()


def reaches(source: str, target: str | None) -> bool:
    """Whether an app's template may not reference target (None: not one of our apps)."""
    return target is not None and target != source and RANKS[target] >= RANKS[source]


def template_dirs() -> list[tuple[Path, str | None]]:
    """(folder of template names, the app owning names in it, None when shared)."""
    dirs: list[tuple[Path, str | None]] = [(Path(d), None) for d in settings.TEMPLATES[0]["DIRS"]]
    for config in apps.get_app_configs():
        if config.name in RANKS and (Path(config.path) / "templates").is_dir():
            dirs.append((Path(config.path) / "templates", config.name))
    return dirs


def owner_of_template(name: str, local_owner: str | None = None) -> str | None:
    first = name.split("/", 1)[0]
    if first in RANKS and "/" in name:
        return first
    return local_owner


def library_owners() -> dict[str, str]:
    return {
        name: module.split(".", 1)[0]
        for name, module in get_installed_libraries().items()
        if module.split(".", 1)[0] in RANKS
    }


def url_owners() -> dict[str, str]:
    """URL name ("ns:name" or a bare name) → the app whose view or URLconf answers it."""
    owners: dict[str, str] = {}
    for entry in get_resolver().url_patterns:
        if isinstance(entry, URLResolver) and entry.namespace:
            module = getattr(entry.urlconf_module, "__name__", "")
            owners[entry.namespace] = module.split(".", 1)[0]
        elif isinstance(entry, URLPattern) and entry.name:
            owners[entry.name] = entry.callback.__module__.split(".", 1)[0]
    return owners


def url_owner(name: str, owners: dict[str, str]) -> str | None:
    key = name.split(":", 1)[0] if ":" in name else name
    owner = owners.get(key)
    return owner if owner in RANKS else None


def upward_references() -> list[str]:
    libraries = library_owners()
    urls = url_owners()
    found: list[str] = []
    for folder, local_owner in template_dirs():
        for path in sorted(folder.rglob("*.html")) + sorted(folder.rglob("*.txt")):
            name = path.relative_to(folder).as_posix()
            source = owner_of_template(name, local_owner)
            if source is None:
                continue
            text = path.read_text()
            for match in TAG.finditer(text):
                tag, args = match.group(1), match.group(2)
                line = text.count("\n", 0, match.start()) + 1
                targets: list[tuple[str, str | None]] = []
                if tag in ("include", "extends"):
                    quoted = QUOTED.match(args)
                    if quoted:  # a variable names a panel a higher app handed down
                        targets.append((quoted.group(2), owner_of_template(quoted.group(2))))
                elif tag == "load":
                    words = args.split()
                    names = words[words.index("from") + 1 :] if "from" in words else words
                    targets += [(lib, libraries.get(lib)) for lib in names]
                else:
                    quoted = QUOTED.match(args)
                    if quoted:
                        targets.append((quoted.group(2), url_owner(quoted.group(2), urls)))
                for target, owner in targets:
                    where = path.relative_to(ROOT).as_posix()
                    if reaches(source, owner):
                        found.append(
                            f"{where}:{line}: {source} {tag} {target!r} of higher app {owner}"
                        )
    return found


def test_layer_order_comes_from_the_import_contract() -> None:
    assert RANKS["engine"] == 0
    assert RANKS["questionnaire"] == RANKS["contracts"]
    assert RANKS["bids"] < RANKS["questionnaire"] < RANKS["acceptance"] < RANKS["api"]


def test_the_scan_sees_an_upward_reference() -> None:
    assert reaches("bids", owner_of_template("acceptance/_request_fixture_panel.html"))
    assert reaches("orgs", owner_of_template("bids/_field.html"))
    assert reaches("questionnaire", library_owners()["acceptance_panels"])
    assert reaches("contracts", url_owner("questionnaire:matrix", url_owners()))
    assert not reaches("acceptance", url_owner("bids:request_detail", url_owners()))
    assert not reaches("bids", url_owner("login", url_owners()))


def test_no_template_reaches_a_higher_app() -> None:
    violations = upward_references()
    assert violations == [], "\n".join(violations)
