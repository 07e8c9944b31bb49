"""Significance: whether a machine-found revert is one a teammate should be stopped by.

A revert whose undone change only touched formatting, whitespace, comments, imports
added or dropped (not one module swapped for another), type annotations or lint
suppressions ("Fix mypy warning", reverted by "Fix ruff warning") is true history and
is recorded, but it is no decision: it never blocks
(`cairn check`, the hook, the language server's findings), never fills the digest,
and `history` still shows it. The importer marks such events with
`metadata.significance: trivial` (`mark`); every surface asks `quiet(event)`. This
module is the one place for both halves of the rule.

The same holds for what a revert undid in the project's prose (`notes`): a changelog
line, a release note, a README badge, a documentation page. Taking one back is true
history, but what a teammate must not redo is the code; the notes follow it.

The test compares what the change did with what it undid, line by line in file
order, after taking out what carries no behaviour (`essence`): if the removed and the
added lines of every file read the same, the change was cosmetic.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["KEY", "TRIVIAL", "essence", "mark", "notes", "quiet", "trivial_change"]

KEY = "significance"
TRIVIAL = "trivial"
MAX_LINES = 20_000  # per revert: a bigger change is never judged cosmetic (and never read)

# Lint and type-checker suppressions, to the end of the line (`noqa: E501`,
# `# type: ignore[attr-defined]`, `// eslint-disable-line`, `// @ts-expect-error`).
_SUPPRESSION = re.compile(
    r"(#\s*(noqa|type:\s*ignore|pragma:|pylint:|pyright:|mypy:|fmt:|isort:|nosec|ruff:)"
    r"|//\s*(eslint-|@ts-|nolint|prettier-ignore|tslint:|biome-ignore|NOLINT)"
    r"|/\*\s*(eslint-|prettier-ignore|istanbul ignore)).*$"
)
# A trailing comment after code (two spaces or more before `#`, or ` //`).
_TRAILING = re.compile(r"(\s{2,}#|\s//)\s.*$")
# A type annotation: `: T`, `-> T`, where T starts like a type (a capital, a builtin
# type, a typing form). Lowercase values (`{key: value}`) are left alone: changing them
# changes behaviour.
_TYPE = (
    r"(?:[A-Z][\w.]*|int|str|float|bool|bytes|list|dict|set|frozenset|tuple|object|type|"
    r"None|string|number|boolean|any|unknown|void|never)(?:\[[^=]*?\]|<[^=]*?>)?"
    r"(?:\s*\|\s*(?:[A-Z][\w.]*|int|str|float|bool|bytes|None|null|undefined|string|number)"
    r"(?:\[[^=]*?\])?)*"
)
_RETURN = re.compile(r"\s*->\s*" + _TYPE + r"\s*(?=:\s*$)")
_TS_RETURN = re.compile(r"(?<=\))\s*:\s*" + _TYPE + r"(?=\s*(?:\{|=>|;|$))")
_PARAM = re.compile(r"(?<=[\w?])\s*:\s*" + _TYPE + r"(?=\s*(?:[,)=;]|$))")
_CAST = re.compile(r"\b(?:typing\.)?cast\(\s*" + _TYPE + r"\s*,\s*")
_QUIET_STATEMENT = re.compile(r"^\s*(if\s+(typing\.)?TYPE_CHECKING\s*:)\s*$")
# The project's own release number (`__version__ = '0.10.3'`, `VERSION = "1.2.0"`,
# setup()'s `version='2.0',`): a bump taken back is release bookkeeping ("quick test"
# then "test #2" on psf/requests), not a decision. A dependency's version is not this.
_OWN_VERSION = re.compile(
    r"""^\s*(?:(?:const|var|let)\s+)?(?:__version__|VERSION|Version|version)\s*[:=]+\s*"""
    r"""(["'])v?\d+(?:\.\d+)+[\w.+-]*\1\s*[,;]?\s*$"""
    r"""|^\s*__build__\s*=\s*(?:0x[0-9a-fA-F]+|\d+)\s*$"""
)
_SPACE = re.compile(r"\s+")
_TRAILING_COMMA = re.compile(r",(?=[)\]}])")


def essence(line: str, path: str) -> str:
    """What a line does, without what cannot change behaviour: whitespace, comments,
    lint suppressions, type annotations, an import, quote style, the project's own
    release number."""
    from cairn.fingerprints import is_code, is_comment_line, is_import_line

    if not is_code(path):
        return _SPACE.sub("", line)
    if is_comment_line(line) or is_import_line(line) or _QUIET_STATEMENT.match(line):
        return ""  # an import is judged apart (`_modules`)
    if _OWN_VERSION.match(line):
        return ""
    text = _SUPPRESSION.sub("", line)
    before = _TRAILING.split(text, 1)[0]
    if before.count('"') % 2 == 0 and before.count("'") % 2 == 0:
        text = _TRAILING.sub("", text)
    text = _RETURN.sub("", text)
    text = _TS_RETURN.sub("", text)
    text = _PARAM.sub("", text)
    text = _CAST.sub("cast(", text)
    return _SPACE.sub("", text).replace("'", '"')


def trivial_change(files: Mapping[str, tuple[Iterable[str], Iterable[str]]]) -> bool:
    """Whether a change (path -> (removed lines, added lines), each in file order) only
    touched formatting, comments, imports, type annotations, lint suppressions or the
    project's own release number."""
    if not files:
        return False
    seen = 0
    for path, (removed, added) in files.items():
        old, new = list(removed), list(added)
        seen += len(old) + len(new)
        if seen > MAX_LINES:
            return False
        a = "".join(essence(t, path) for t in old)
        b = "".join(essence(t, path) for t in new)
        if _strip_casts(a) != _strip_casts(b):
            return False
        # Imports only added (a type's) or only dropped (an unused one) are lint; one
        # module swapped for another (`wagtailmodelsearch` back to `modelsearch`) is
        # a decision, however little else changed.
        gone, came = _modules(old, path), _modules(new, path)
        if gone and came and gone != came:
            return False
    return True


_FROM = re.compile(r"^\s*from\s+(\S+)\s+import\b")
_IMPORT = re.compile(r"^\s*import\s+([\w.]+)")


def _modules(lines: list[str], path: str) -> set[str]:
    """The modules the import lines among `lines` name (the squeezed line for a form
    with no module to read)."""
    from cairn.fingerprints import is_code, is_import_line

    if not is_code(path):
        return set()
    out: set[str] = set()
    for line in lines:
        if is_import_line(line):
            m = _FROM.match(line) or _IMPORT.match(line)
            out.add(m.group(1) if m else _SPACE.sub("", line))
    return out


def _strip_casts(text: str) -> str:
    """Trailing commas dropped and `cast(x)` read as `x` (`_CAST` took the type out
    already; the call's parentheses would still differ)."""
    out = _TRAILING_COMMA.sub("", text)
    while "cast(" in out:
        i = out.index("cast(")
        depth, j = 0, i + 4
        for j in range(i + 4, len(out)):
            depth += {"(": 1, ")": -1}.get(out[j], 0)
            if depth == 0:
                break
        out = out[:i] + out[i + 5 : j] + out[j + 1 :]
    return out


# Release notes and changelogs, by their file's name (`CHANGELOG.txt`, `HISTORY.rst`,
# `NEWS`) or directory (`changelog_unreleased/`, `changelog.d/`, towncrier's
# `newsfragments/`, reno's `releasenotes/`). Not `releases/` nor `blog/`: on a site
# (djangoproject.com) those are Django apps.
_NOTE_NAMES = re.compile(
    r"^(changelog|changes|history|news|releases?|release[-_]?notes|authors|contributors|"
    r"sponsors|thanks|credits|readme)([-_.][\w.-]*)?$",
    re.I,
)
_NOTE_DIRS = frozenset(
    {
        "changelog",
        "changelogs",
        "changelog_unreleased",
        "changelog.d",
        "newsfragments",
        "releasenotes",
        "release-notes",
        "release_notes",
    }
)
_DOC_DIRS = frozenset({"doc", "docs", "documentation"})
# Prose by its extension, anywhere; plain text only inside a documentation directory
# (elsewhere `.txt` is a manifest: `requirements.txt`, `CMakeLists.txt`).
# Sphinx's theme directories: code, but the documentation site's (a `docs/` holding
# `.py` and `.html` of its own may be an app: djangoproject.com's is).
_SPHINX_DIRS = frozenset({"_static", "_templates", "_themes"})
_PROSE = frozenset({".md", ".mdx", ".markdown", ".rst", ".adoc", ".asciidoc", ".textile"})
# Architecture decision records are prose, but each one is a decision: undoing one is
# the thing Cairn exists to remember (adr-tools' `doc/adr/`, MADR's `docs/decisions/`).
_DECISION_DIRS = frozenset({"adr", "adrs", "decisions", "architecture-decisions"})


def notes(path: str) -> bool:
    """Whether a file is the project's prose (changelog, release notes, README,
    documentation), by its path alone: an undo there is never a decision to block."""
    from cairn.fingerprints import is_code

    parts = path.lower().split("/")
    if any(d in _DECISION_DIRS for d in parts[:-1]):
        return False
    name = parts[-1]
    dot = name.rfind(".")
    suffix = name[dot:] if dot > 0 else ""
    if suffix in _PROSE:
        return True
    # By name only as plain text: `release.yml` is a CI workflow, `history.json` data.
    if _NOTE_NAMES.match(name) and suffix in ("", ".txt") and not is_code(path):
        return True
    dirs = parts[:-1]
    if any(d in _NOTE_DIRS for d in dirs) and not is_code(path):
        return True
    in_docs = [i for i, d in enumerate(dirs) if d in _DOC_DIRS]
    if in_docs and any(d in _SPHINX_DIRS for d in dirs[in_docs[0] :]):
        return True  # the docs site's own theme: `docs/_templates/`, `docs/_static/`
    return bool(in_docs) and suffix == ".txt" and not name.startswith("requirements")


def mark(meta: dict[str, object], files: Mapping[str, tuple[Iterable[str], Iterable[str]]]) -> None:
    """Set `metadata.significance` on an imported revert's event when it is cosmetic."""
    if trivial_change(files):
        meta[KEY] = TRIVIAL


def quiet(event: Any) -> bool:
    """Whether a verdict is recorded history that blocks nothing and stays out of the
    digest (`significance: trivial`). The one test every surface asks."""
    meta = getattr(event, "metadata", None)
    return isinstance(meta, dict) and meta.get(KEY) == TRIVIAL
