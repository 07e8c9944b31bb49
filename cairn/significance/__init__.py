"""Significance: whether a machine-found revert is one a teammate should be stopped by.

A revert whose undone change only touched formatting, whitespace, comments, imports
added or dropped (not one module swapped for another), type annotations or lint
suppressions ("Fix mypy warning", reverted by "Fix ruff warning") is true history and
is recorded, but it is no decision: it never blocks
(`cairn check`, the hook, the language server's findings), never fills the digest,
and `history` still shows it. The importer marks such events with
`metadata.significance: trivial` (`trivial_files`, file by file: in a revert that also
undid code, a file only reformatted is still no decision); every surface asks
`quiet(event)`. This package is the one place for both halves of the rule: the mark
and its test here, the judging in `cairn.significance.judge`, imported on first use
(its ~20 patterns were ~21M instructions of the language server's start, which only
ever asks `quiet`: docs/performance.md).

Two more kinds of undo are true history but no decision: a *toggle* (code commented
out, or back in: a switch flipped for a while) and an *accident* (a commit taken back
because it went in by mistake: the revert says so, or its author took it back within
minutes with no word of why), `accident`.

The same holds for what a revert undid in the project's prose (`notes`): a changelog
line, a release note, a README badge, a documentation page. Taking one back is true
history, but what a teammate must not redo is the code; the notes follow it.

The test compares what the change did with what it undid, line by line in file
order, after taking out what carries no behaviour (`essence`): if the removed and the
added lines of every file read the same, the change was cosmetic.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cairn.lazy import exports

if TYPE_CHECKING:
    from cairn.significance.judge import (
        accident,
        ci_config,
        ci_tweak,
        essence,
        notes,
        planned_undo,
        release_tooling,
        says_why,
        trivial_change,
        trivial_files,
    )

__all__ = [
    "KEY",
    "TRIVIAL",
    "accident",
    "ci_config",
    "ci_tweak",
    "essence",
    "notes",
    "planned_undo",
    "quiet",
    "release_tooling",
    "says_why",
    "trivial_change",
    "trivial_files",
]

KEY = "significance"
TRIVIAL = "trivial"


def quiet(event: Any) -> bool:
    """Whether a verdict is recorded history that blocks nothing and stays out of the
    digest (`significance: trivial`). The one test every surface asks."""
    meta = getattr(event, "metadata", None)
    return isinstance(meta, dict) and meta.get(KEY) == TRIVIAL


# every exported name this module does not define is the judge's, loaded on first use
_JUDGED = [name for name in __all__ if name not in globals()]
__getattr__ = exports("cairn.significance", dict.fromkeys(_JUDGED, "judge"))
