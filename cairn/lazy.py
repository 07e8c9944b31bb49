"""A package's public names imported on first use (PEP 562), so importing one of its
modules (`cairn.store.paths`, say) does not load the whole package: the one
`__getattr__` the store and the indexer share. Imports nothing of Cairn (a contract in
pyproject.toml keeps it so)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

__all__ = ["exports"]


def exports(package: str, homes: dict[str, str]) -> Callable[[str], Any]:
    """A module `__getattr__` for `package` that imports each name in `homes` from the
    submodule named there the first time it is asked for."""

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        # the import statement's own path (`__import__`), which `-X importtime` reports;
        # importlib.import_module's is invisible to it (tests/check/test_cold_imports.py)
        __import__(f"{package}.{home}")
        return getattr(sys.modules[f"{package}.{home}"], name)

    return __getattr__
