"""What a revert undid, judged: cosmetic (`essence`, `trivial_change`, `trivial_files`), a
toggle, an `accident`, a `planned_undo`, a CI matrix tweak taken back bare (`ci_tweak`), a
licence's copyright notice, release tooling (`release_tooling`) or the project's prose
(`notes`). The rule's
first half (see `cairn.significance`); only the git importer and the gate ask it."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping
from datetime import datetime, timedelta

__all__ = [
    "accident",
    "ci_config",
    "ci_tweak",
    "essence",
    "notes",
    "planned_undo",
    "release_tooling",
    "says_why",
    "trivial_change",
    "trivial_files",
]

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
        if _hash_comments(path):
            line = _without_hash_comment(line)
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


# Files that are no code (`is_code`: their lines are matched as text) but whose format
# comments with `#`: a comment there is as cosmetic as one in code (rubygems.org's
# `Trigger rebuild.`, a blank line of `.travis.yml` swapped for a lone `#` and back).
# Code that comments with `#` (shell, Dockerfile, Ruby, Python) is `is_comment_line`'s.
_HASH_LANGUAGES = frozenset({"yaml", "toml", "requirements", "ruby"})  # ruby: a Gemfile
_HASH_SUFFIXES = frozenset({".cfg", ".ini", ".conf", ".env"})


def _hash_comments(path: str) -> bool:
    from cairn.indexer.languages import language_for

    name = path.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return language_for(path) in _HASH_LANGUAGES or (dot >= 0 and name[dot:] in _HASH_SUFFIXES)


def _without_hash_comment(line: str) -> str:
    """The line without its `#` comment. One starts at a `#` that opens the line or
    follows a blank, outside quotes (YAML's rule, and pip's): `"#fff"`, `'#general'`
    and a URL's `#egg=` are values. A quote left open (an apostrophe in a plain YAML
    value) keeps the rest of the line: a value is never taken for a comment."""
    quote = ""
    escaped = False
    for i, ch in enumerate(line):
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\" and quote == '"':
                escaped = True
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i]
    return line


def trivial_change(files: Mapping[str, tuple[Iterable[str], Iterable[str]]]) -> bool:
    """Whether a change (path -> (removed lines, added lines), each in file order) only
    touched formatting, comments, imports, type annotations, lint suppressions or the
    project's own release number, in every file."""
    return bool(files) and len(trivial_files(files)) == len(files)


def trivial_files(files: Mapping[str, tuple[Iterable[str], Iterable[str]]]) -> set[str]:
    """The files of a change whose own lines were cosmetic (`trivial_change`'s test, file
    by file): in a revert that also undid code elsewhere, a file that was only
    reformatted, re-commented or had its imports moved is no decision of its own. A
    toggle (the same code commented out, or back in) counts as cosmetic too: it is a
    switch flipped for a while ("Comment out finished steps"), not a rejected change.
    Bounded: past `MAX_LINES` in all, no further file is read (none is cosmetic)."""
    out: set[str] = set()
    seen = 0
    for path, (removed, added) in files.items():
        old, new = list(removed), list(added)
        seen += len(old) + len(new)
        if seen > MAX_LINES:
            break
        if _cosmetic(old, new, path) or _toggled(old, new, path) or _copyright(old, new, path):
            out.add(path)
    return out


# A licence file, by name (`LICENSE`, `LICENCE.txt`, `COPYING`, `MIT-LICENSE`).
_LICENCE_NAME = re.compile(r"^([\w-]*[-_.])?(licen[cs]e|copying|unlicense)([-_.][\w.-]*)?$", re.I)
# A copyright notice line: who holds it and which years.
_COPYRIGHT_LINE = re.compile(r"^\W*(copyright\b|\(c\)|©)", re.I)


def _copyright(old: list[str], new: list[str], path: str) -> bool:
    """Whether a licence file's change only touched its copyright notice (the holder's
    name, the years): bookkeeping (psf/requests' "further lies.", the holder's name
    swapped and taken back). A change of the licence's terms is a decision and stays
    one. Lines the same on both sides (a newline at the end of the file) don't count."""
    from cairn.fingerprints import is_code

    if not _LICENCE_NAME.match(path.rsplit("/", 1)[-1]) or is_code(path):
        return False  # `license.py` is code: its `copyright = …` is behaviour
    a = [_SPACE.sub(" ", t).strip() for t in old]
    b = [_SPACE.sub(" ", t).strip() for t in new]
    left = [t for t in a if t and t not in b] + [t for t in b if t and t not in a]
    return bool(left) and all(_COPYRIGHT_LINE.match(t) for t in left)


def _cosmetic(old: list[str], new: list[str], path: str) -> bool:
    a = "".join(essence(t, path) for t in old)
    b = "".join(essence(t, path) for t in new)
    if _strip_casts(a) != _strip_casts(b):
        return False
    # Imports only added (a type's) or only dropped (an unused one) are lint, and so is
    # a module that moved (`wagtail.core.models` -> `wagtail.models`: the same module
    # by its last name). One module swapped for another (`wagtailmodelsearch` back to
    # `modelsearch`) is a decision, however little else changed.
    gone, came = _modules(old, path), _modules(new, path)
    if not (gone and came and gone != came) or _moved(gone, came):
        return True
    # The same names imported from another path inside the same package (`diff/lib/
    # patch/create.js` -> `diff`): the import's shape, not the dependency, changed.
    return _names(old, path) == _names(new, path) and _tops(gone) == _tops(came)


# A comment's opening (and a block comment's closing) around code put out of use.
_COMMENT_OPEN = re.compile(r"^\s*(?:#+|//+|/\*+|<!--|\{#|--|;+|%+)\s?")
_COMMENT_CLOSE = re.compile(r"\s*(?:\*/|-->|#\})\s*$")


def _toggled(old: list[str], new: list[str], path: str) -> bool:
    """Whether a file's change only commented code out or back in: the lines of one side
    read, once uncommented, as the lines of the other (at least one code line moved
    between a comment and code; a change of comments alone is `_cosmetic`'s)."""
    from cairn.fingerprints import is_comment_line

    def plain(lines: list[str]) -> str:
        return "".join(_SPACE.sub("", _uncomment(t)).replace("'", '"') for t in lines)

    if not old and not new:
        return False
    commented = sum(1 for t in old + new if is_comment_line(t))
    code = sum(1 for t in old + new if t.strip() and not is_comment_line(t))
    if not (commented and code):
        return False
    return plain(old) == plain(new)


# A stray keystroke or two after a commented-out line's last punctuation
# (`// "./steps/install.js",s`): never run, so never noticed.
_STRAY = re.compile(r"""([,;)\]}"'])[^,;)\]}"'\s]{1,2}\s*$""")


def _uncomment(line: str) -> str:
    from cairn.fingerprints import is_comment_line

    if not is_comment_line(line):
        return line
    code = _COMMENT_CLOSE.sub("", _COMMENT_OPEN.sub("", line, count=1))
    return _STRAY.sub(r"\1", code)


# An accident, in the revert's own words: pushed by mistake, not a change rejected.
_ACCIDENT = re.compile(
    r"\b(accident(?:al(?:ly)?)?|by\s+mistake|mistaken(?:ly)?|in\s+error|wrong\s+(?:branch|repo\w*|remote)"
    r"|unintended|unintentional(?:ly)?|inadvertent(?:ly)?|pushed\s+too\s+(?:early|soon)"
    r"|oops|didn'?t\s+mean\s+to|not\s+meant\s+to\s+be\s+(?:pushed|committed|merged))\b",
    re.I,
)
QUOTED = re.compile(r"\"[^\n]*\"")  # the reverted commit's subject, quoted: not the revert's words
# A revert this soon after, by the same author, with no reason of its own: pushed by
# mistake and taken back at once. Not longer: on rubygems.org, silent same-author
# reverts 18, 23 and 45 minutes after were real ("Add dependency partial…", "remove
# some existing indexes…", "Add to_xml and to_yaml methods…": the change broke something).
ACCIDENT_MINUTES = 5


def accident(
    revert_words: str,
    revert_author: str,
    revert_date: str,
    original_author: str | None,
    original_date: str | None,
) -> bool:
    """Whether a revert undid a commit that went in by mistake: its own words (the
    message beyond git's boilerplate, `Revert "..."`'s quoted subject left out) say so
    ("accidentally committed", "wrong branch"), or the same author took it back within
    `ACCIDENT_MINUTES` and said nothing more than git's `Revert "..."`. True history,
    recorded; but nothing anyone decided against, so it never blocks nor fills the digest
    (rubygems.org's "Remove accidentally committed file", later re-added on purpose)."""
    words = QUOTED.sub("", revert_words)
    if _ACCIDENT.search(words):
        return True
    if original_author is None or original_date is None:
        return False
    if revert_author.strip().casefold() != original_author.strip().casefold():
        return False
    if says_why(revert_words):
        return False  # a reason of its own
    try:
        gap = datetime.fromisoformat(revert_date) - datetime.fromisoformat(original_date)
    except ValueError:
        return False
    return timedelta(0) <= gap <= timedelta(minutes=ACCIDENT_MINUTES)


def says_why(revert_words: str) -> bool:
    """Whether a revert's message (git's boilerplate already left out) says anything of
    its own beyond `Revert "<the reverted subject>"`: a reason, a pull request number,
    a word of context. One test for `accident` and `ci_tweak`."""
    words = QUOTED.sub("", revert_words)
    return bool(
        re.sub(r"^\s*(revert|reverts|reverted)\b[\s:]*", "", words, flags=re.I).strip(" .\n")
    )


# Continuous-integration configuration, by path: what the CI service runs, not what the
# project does. `Jenkinsfile` and the services' own files and directories.
_CI_NAMES = re.compile(
    r"^\.?(travis|appveyor|gitlab-ci|azure-pipelines|drone|cirrus|bitbucket-pipelines|"
    r"codecov|semaphore|wercker)\.ya?ml$|^jenkinsfile$",
    re.I,
)
CI_DIRS = (".github/workflows/", ".circleci/", ".buildkite/", ".semaphore/", ".woodpecker/")


def ci_config(path: str) -> bool:
    """Whether a file configures the project's CI service (`.travis.yml`,
    `.github/workflows/*.yml`, `.circleci/`, `appveyor.yml`, `.gitlab-ci.yml`, …)."""
    low = path.lower()
    return _CI_NAMES.match(low.rsplit("/", 1)[-1]) is not None or low.startswith(CI_DIRS)


# One entry of a build matrix: a YAML list item naming one version or runtime (`- 1.8.7`,
# `- rbx`, `- "3.12"`, `- jruby-head`).
_MATRIX_ENTRY = re.compile(r"""^\s*-\s*(["']?)[\w.+-]+\1\s*$""")


def ci_tweak(
    changes: Mapping[str, tuple[Iterable[str], Iterable[str]]],
    whole: Collection[str],
    revert_words: str,
) -> bool:
    """Whether a revert only took back a tweak of the CI build matrix, without a word of
    why: every file it changed (path -> (removed, added) lines) is CI configuration
    that existed before and after (none in `whole`: created or deleted), every line it
    changed is one entry of a matrix (a version or runtime in a list), and its message
    is git's `Revert "…"` and nothing more (rubygems.org's `Revert "Fix tests"`: two
    Rubies added to the Travis matrix and taken out again). A trial of what to test on,
    not a decision anyone must be stopped by. Not a tweak: a changed command or
    condition (wagtail's `Revert "Use file-based SQLite database when running tests on
    CircleCI"`, `Revert "Support skipping CI"`), a CI setup created or removed whole
    (psf/requests' `Revert "Set up Azure Pipelines…"`), a revert that says why
    ("travis on 3.3 is broken", "Revert cosign (see #7536)"), or one that also changed
    anything else."""
    if not changes or says_why(revert_words):
        return False
    for path, (removed, added) in changes.items():
        if not ci_config(path) or path in whole:
            return False
        lines = [t for t in (*removed, *added) if t.strip()]
        if not lines or not all(_MATRIX_ENTRY.match(t) for t in lines):
            return False
    return True


# The maintainers' release tooling: scripts run by whoever cuts a release (bump the
# version, clean the changelog, draft the release post), under a `release/` directory
# of the project's scripts, or a `release` script there.
_SCRIPT_DIRS = frozenset({"script", "scripts", "tools", "tooling", "bin", "build", "dev", "ci"})
_RELEASE_DIRS = frozenset({"release", "releases", "releasing", "release-scripts", "publish"})
_RELEASE_SCRIPT = re.compile(r"^(release|publish|bump[-_]?version)([-_.][\w.-]*)?$", re.I)


def release_tooling(path: str) -> bool:
    """Whether a file is the project's release tooling (`scripts/release/steps/
    clean-changelog.js`, `tools/release.sh`): like the version string and the
    changelog it writes, release bookkeeping. An undo there is true history, but what
    it protects is one maintainer's release day, not the code a teammate changes
    (prettier's release steps commented out and back, "Remove needless call"). A CI
    workflow named `release.yml` is CI configuration, not this."""
    parts = path.lower().split("/")
    dirs, name = parts[:-1], parts[-1]
    for i, d in enumerate(dirs):
        if d in _SCRIPT_DIRS and i + 1 < len(dirs) and dirs[i + 1] in _RELEASE_DIRS:
            return True
    return bool(dirs) and dirs[-1] in _SCRIPT_DIRS and _RELEASE_SCRIPT.match(name) is not None


# A planned undo: the reverted commit said it switched something off *for a while*
# ("Temporarily disable pushing", "Disable elasticsearch temporarly"), so switching it
# back on is the plan carried out, not a change rejected. Both words are needed:
# wagtail's "Temporarily use wagtailmodelsearch package" was reverted as a decision
# (the package was dropped), so "temporarily" alone is not the rule.
_WHILE = re.compile(r"\b(temporar(?:il)?y|temporarly|temporaly|for\s+now)\b", re.I)
_OFF = re.compile(
    r"\b(disabl\w*|deactivat\w*|skip\w*|turn\w*\s+off|switch\w*\s+off|comment\w*\s+out"
    r"|paus\w*|suspend\w*|mut(?:e|ed|ing)|silenc\w*|xfail\w*|hid(?:e|es|ing))\b",
    re.I,
)


def planned_undo(original_subject: str | None) -> bool:
    """Whether the reverted commit switched something off for a while, by its own
    subject, so its revert is the planned switch back on: recorded, quiet."""
    if not original_subject:
        return False
    return bool(_WHILE.search(original_subject) and _OFF.search(original_subject))


_FROM = re.compile(r"^\s*from\s+(\S+)\s+import\b")
_IMPORT = re.compile(r"^\s*import\s+([\w.]+)")
# JavaScript/TypeScript: the module string (`import x from "./a/b"`, `require("b")`).
_JS_FROM = re.compile(r"""(?:\bfrom\s+|^\s*import\s+|\brequire\(\s*)(["'])([^"']+)\1""")


def _modules(lines: list[str], path: str) -> set[str]:
    """The modules the import lines among `lines` name (the squeezed line for a form
    with no module to read)."""
    from cairn.fingerprints import is_code, is_import_line

    if not is_code(path):
        return set()
    out: set[str] = set()
    for line in lines:
        if is_import_line(line):
            js = _JS_FROM.search(line)
            m = _FROM.match(line) or _IMPORT.match(line)
            out.add(js.group(2) if js else m.group(1) if m else _SPACE.sub("", line))
    return out


def _names(lines: list[str], path: str) -> list[str]:
    """The import lines among `lines` without their module (what they bind), sorted."""
    from cairn.fingerprints import is_import_line

    out = []
    for line in lines:
        if is_import_line(line):
            js = _JS_FROM.search(line)
            m = _FROM.match(line)
            if js:
                line = line[: js.start(2)] + line[js.end(2) :]
            elif m:
                line = line[: m.start(1)] + line[m.end(1) :]
            out.append(_SPACE.sub("", line))
    return sorted(out)


def _tops(modules: set[str]) -> set[str]:
    return {_where(m)[0] for m in modules}


def _moved(gone: set[str], came: set[str]) -> bool:
    """Whether the modules named before and after are the same modules moved inside one
    package: each has a partner on the other side with the same last name and the same
    top-level package (`wagtail.wagtailcore.models` -> `wagtail.core.models`; a relative
    import pairs with any). `modelsearch.backends.base` -> `wagtailmodelsearch.backends.base`
    is another package: a dependency swapped, a decision."""
    a, b = {_where(m) for m in gone}, {_where(m) for m in came}

    def paired(x: tuple[str, str], others: set[tuple[str, str]]) -> bool:
        return any(x[1] == y[1] and (x[0] == y[0] or "" in (x[0], y[0])) for y in others)

    return all(paired(x, b) for x in a) and all(paired(y, a) for y in b)


def _where(module: str) -> tuple[str, str]:
    """(top-level package, "" when relative; last name) of a module: `wagtail.core.models`
    -> (wagtail, models); `.models` -> ("", models); `../lib/models.js` -> ("", models);
    `lodash/fp` -> (lodash, fp)."""
    if "/" in module:
        parts = [p for p in module.rstrip("/").split("/") if p]
        top = "" if module.startswith((".", "/", "@/", "~/")) else parts[0]
        return top, parts[-1].split(".", 1)[0] if parts else ""
    parts = module.split(".")
    return ("" if module.startswith(".") else parts[0]), parts[-1]


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
# (djangoproject.com) those are Django apps. A `NOTICE` carries bundled code's licence
# notices: it follows that code back.
_NOTE_NAMES = re.compile(
    r"^(changelog|changes|history|news|releases?|release[-_]?notes|authors|contributors|"
    r"sponsors|thanks|credits|readme|notice)([-_.][\w.-]*)?$",
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
# GitHub's sponsor button (`.github/FUNDING.yml`) and its JSON cousin (`FUNDING.json`).
_FUNDING = frozenset({"funding.yml", "funding.yaml", "funding.json"})
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
    if parts[-1] in _FUNDING and parts[:-1] in ([], [".github"]):
        return True  # the sponsor button's links: like a sponsors list
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
