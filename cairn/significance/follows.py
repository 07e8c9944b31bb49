"""What only followed a change, judged (issue 28's last right-but-trivial verdicts that
blocked): the data a test reads, the tests of code removed in the same commit, a
removal of what its own commit calls temporary, and a CI service's setup dropped while
another CI stays. Each is a real undo, recorded; none is a decision anyone must be stopped
by, so the git importer marks it quiet (`cairn.significance.quiet`). The rest of the
rule lives in `cairn.significance.judge`; only the git importer asks these.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable

from cairn.significance.judge import CI_DIRS, QUOTED, ci_config

__all__ = ["ci_moved", "ci_service", "is_test_data", "left_with_code", "planned_removal"]

# Directories of a test's input data: Go's `testdata/` (the toolchain ignores it),
# fixtures under their usual names. A test *file* is not this: its cases are decisions
# (prettier's `tests/format/…` inputs are its specification).
_DATA_DIRS = frozenset(
    {
        "testdata",
        "test_data",
        "test-data",
        "fixtures",
        "fixture",
        "__fixtures__",
        "test_fixtures",
    }
)
_TEST_DIRS = frozenset({"test", "tests", "spec", "specs", "__tests__"})


def is_test_data(path: str) -> bool:
    """Whether a file is data a test reads (`caddyfile/testdata/clusterfuzz-testcase-…`,
    `spec/fixtures/gem.tar`): it follows the code it exercises back."""
    return any(d in _DATA_DIRS for d in path.lower().split("/")[:-1])


def is_test(path: str) -> bool:
    """A file of the tests: in a test directory, or named as one (`test_x.py`,
    `x_test.go`, `x.spec.ts`, `x_spec.rb`)."""
    parts = path.lower().split("/")
    name = parts[-1]
    stem = name.rsplit(".", 1)[0]
    return (
        any(p in _TEST_DIRS for p in parts[:-1])
        or name.startswith("test_")
        or stem.endswith(("_test", ".test", ".spec", "_spec"))
    )


def left_with_code(
    entity_files: Collection[str], changed: Collection[str], undone: Collection[str]
) -> bool:
    """Whether a revert found by its content alone took out only tests that a commit of
    tests alone had added (`undone`: the reverted commit's files), while its own commit
    (`changed`) removed code beyond them: the tests left with code removed for its own
    reasons (wagtail's "Remove unused BaseSidePanels class": the ordering test and its
    helper panels matched the commit that added the test; the class itself had grown
    over three commits and matched none). Tests of a reverted feature that came with it
    (prettier's "Remove support for importReflection", whose fixtures matched the
    commit that added the support) are a decision, and so is a commit of tests alone."""
    if not entity_files or not all(is_test(p) for p in entity_files):
        return False
    if not undone or not all(is_test(p) or is_test_data(p) for p in undone):
        return False
    return any(not is_test(p) and not is_test_data(p) for p in changed)


# The remover's own words: it takes out something it calls temporary ("Removes the
# temporary Kickstarter banner."), outside a quoted subject (`Revert "Temporarily use
# wagtailmodelsearch package"` quotes what it undoes: that revert was a decision).
_TEMPORARY = re.compile(r"\btemporar(?:il)?y\b|\btemporarly\b", re.I)
_REMOVES = re.compile(
    r"^\W*(remov\w*|delet\w*|drop\w*|take\w*\s+out|clean\w*\s+up|get\s+rid)\b", re.I
)


def planned_removal(revert_words: str) -> bool:
    """Whether a commit removes what its own words call temporary: the plan carried out,
    not a change rejected (wagtail's docs banner for a Kickstarter campaign, added as "a
    temporary docs banner" and taken out when the campaign ended). By the commit's
    subject: it must say it removes, and what it removes is temporary."""
    subject = QUOTED.sub("", revert_words.split("\n", 1)[0])
    return bool(_REMOVES.match(subject) and _TEMPORARY.search(subject))


def ci_service(path: str) -> str:
    """Which CI service a CI configuration file is for (`.github/workflows/x.yml` ->
    `.github/workflows/`, `.travis.yml` -> `travis`, `azure-pipelines.yml` ->
    `azure-pipelines`)."""
    low = path.lower()
    for d in CI_DIRS:
        if low.startswith(d):
            return d
    return low.rsplit("/", 1)[-1].lstrip(".").split(".", 1)[0]


def ci_moved(
    deleted: Collection[str], by_content: bool, tree: Callable[[], Iterable[str]]
) -> set[str]:
    """The CI configuration files among a commit's `deleted` ones that left while the
    project's CI went on with another service: deleted whole, by a commit that does not
    call itself a revert (`by_content`: found only by its content, caddy's "ci: Delete
    .travis.yml"), while configuration of another service, and none of theirs, stays in
    its `tree` (read only when it matters; GitHub Actions beside caddy's Travis). A
    workflow removed beside the same service's others is a CI step dropped
    (rubygems.org's "remove ERD CI step", with why: right); a revert that names the
    setup it takes back (psf/requests' `Revert "Set up Azure Pipelines…"`) is a decision
    against that service; removing the project's only CI is one too: all stay loud."""
    gone = {p for p in deleted if ci_config(p)}
    if not (gone and by_content):
        return set()
    left = {ci_service(p) for p in tree() if ci_config(p) and p not in gone}
    return gone if left and not (left & {ci_service(p) for p in gone}) else set()
