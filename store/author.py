"""Who is writing: `--author`, else CAIRN_AUTHOR, else the application's lookup (git's
user), else $USER.

The store runs no git: the application hands it an `AuthorLookup`
(`cairn.gitrefs.git_author`), as `verify` is handed `refs_holding`.
"""

from __future__ import annotations

import getpass
import os
from collections.abc import Callable

__all__ = ["AuthorLookup", "default_author"]

AuthorLookup = Callable[[], str]  # the writer's identity as the application knows it, or ""


def default_author(lookup: AuthorLookup | None = None) -> str:
    """The author to stamp on an event when the writer did not name one."""
    env = os.environ.get("CAIRN_AUTHOR", "").strip()
    if env:
        return env
    return (lookup() if lookup is not None else "") or _user()


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"
