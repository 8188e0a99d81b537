"""Route names whose tenancy rows live in other test modules' tables.

Each app's tenancy test module lists its routes here, so the one route check sees them all.
"""

from __future__ import annotations

_COVERED: set[str] = set()


def register(*names: str) -> None:
    _COVERED.update(names)


def covered() -> set[str]:
    # Importing the tables registers their routes.
    import importlib
    import pkgutil

    import tests

    for module in pkgutil.walk_packages(tests.__path__, "tests."):
        if module.name.endswith("test_tenancy") and module.name != "tests.bids.test_tenancy":
            importlib.import_module(module.name)
    return set(_COVERED)
