"""Undos that only followed something else (issue 28's last right-but-trivial verdicts
that blocked, `cairn.significance.follows` and `cairn.importers.trees.copied_in`): a
test's data taken back with the code it exercised, tests removed with code the commit
dropped for its own reasons, the docs' build configuration, a CI service's setup
deleted while the project's CI goes on elsewhere, and a bundled library whose only
marker is its own licence, unbundled. Each is recorded quiet and never blocks; the
same undo where it is a decision stays loud. Real git histories, the real
`cairn import git` and `cairn check --diff HEAD`.
"""

from __future__ import annotations

from pathlib import Path

from real_cli import cairn, cairn_json, commit, git

from cairn.significance.follows import (
    ci_moved,
    ci_service,
    is_test_data,
    left_with_code,
    planned_removal,
)
from importers.test_git_quiet_reverts import PRICES, SKU, blocking, put_back, reverts

LEXER = """\
func next(l *lexer) bool {
\tif l.heredoc {
\t\treturn l.readHeredoc()
\t}
\treturn l.readWord()
}
"""
LONG = LEXER.replace(
    "\t\treturn l.readHeredoc()",
    '\t\tif len(l.marker) > 32 {\n\t\t\treturn l.fail("heredoc marker too long")\n\t\t}\n'
    "\t\treturn l.readHeredoc()",
)
CRASH = "<<" + "A" * 40 + "\nbody\n" + "A" * 40 + "\n"


def test_a_tests_data_taken_back_with_the_code_is_quiet_the_code_blocks(project: Path) -> None:
    commit(project, "Lexer", "2024-01-01T10:00:00Z", {"caddyfile/lexer.go": LEXER})
    commit(
        project,
        "Reject long heredoc markers",
        "2024-01-02T10:00:00Z",
        {"caddyfile/lexer.go": LONG, "caddyfile/testdata/fuzz-crash-1": CRASH},
    )
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-03T10:00:00Z")
    # A revert of the data alone is about the data: it stays loud.
    commit(project, "Another crash", "2024-01-04T10:00:00Z", {"caddyfile/testdata/crash-2": CRASH})
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-05T10:00:00Z")
    cairn_json(project, "import", "git")
    found = reverts(project)['Revert "Reject long heredoc markers"']
    assert found["caddyfile/testdata/fuzz-crash-1"] == "trivial", found
    assert {v for k, v in found.items() if "testdata" not in k} == {None}, found
    assert set(reverts(project)['Revert "Another crash"'].values()) == {None}
    code, report = put_back(project, {"caddyfile/testdata/fuzz-crash-1": CRASH})
    assert code == 0, blocking(report)
    code, report = put_back(project, {"caddyfile/lexer.go": LONG})
    assert code == 1 and blocking(report)


PANELS = """\
class SidePanels:
    def __init__(self, request):
        self.request = request
        self.panels = []

    def render(self):
        return "".join(p.render() for p in self.panels)
"""
ORDERED = PANELS.replace(
    "        self.panels = []\n",
    "        self.panels = []\n        self.panels.sort(key=lambda p: p.order)\n",
)
PANEL_TEST = """\
from shop.panels import SidePanels


class PanelA:
    order = 300


class PanelB:
    order = 100


class MyPanels(SidePanels):
    def __init__(self, request):
        super().__init__(request)
        self.panels = [PanelA(), PanelB()]


class TestPanels:
    def test_ordering(self):
        assert [p.order for p in MyPanels(None).panels] == [100, 300]
"""
UNICODE_TEST = """\
class UnicodeSuite:
    def test_latin1_url(self):
        assert get("http://example.org/\\u00e9").ok

    def test_latin1_body(self):
        assert post("http://example.org/", data="\\u00e9").ok
"""


def test_tests_removed_with_code_the_commit_dropped_are_quiet_a_test_suite_alone_is_not(
    project: Path,
) -> None:
    commit(project, "Panels", "2024-01-01T10:00:00Z", {"shop/panels.py": PANELS})
    commit(project, "Order the panels", "2024-01-02T10:00:00Z", {"shop/panels.py": ORDERED})
    commit(
        project, "Test the ordering", "2024-01-03T10:00:00Z", {"tests/test_panels.py": PANEL_TEST}
    )
    commit(
        project, "Unicode suite", "2024-01-04T10:00:00Z", {"tests/test_unicode.py": UNICODE_TEST}
    )
    # The class came from two commits and matches neither; its test matches its own.
    commit(
        project,
        "Remove unused SidePanels class",
        "2024-01-05T10:00:00Z",
        {"shop/panels.py": "", "tests/test_panels.py": None},
    )
    commit(
        project,
        "No separate unicode suite",
        "2024-01-06T10:00:00Z",
        {"tests/test_unicode.py": None},
    )
    cairn_json(project, "import", "git")
    found = reverts(project)
    assert found["Remove unused SidePanels class"], found
    assert set(found["Remove unused SidePanels class"].values()) == {"trivial"}, found
    assert set(found["No separate unicode suite"].values()) == {None}, found
    code, report = put_back(project, {"tests/test_panels.py": PANEL_TEST})
    assert code == 0, blocking(report)
    code, report = put_back(project, {"tests/test_unicode.py": UNICODE_TEST})
    assert code == 1 and blocking(report)


CONF = """\
project = "Shop"
html_theme = "sphinx_rtd_theme"
"""
BANNER = (
    CONF
    + """

def setup(app):
    app.add_js_file("js/kickstarter.js")
"""
)
BANNER_JS = "document.body.prepend(banner('Back us on Kickstarter'));\n"
ROBOTS = CONF + "html_extra_path = ['robots.txt']\n"


def test_taking_out_what_its_own_commit_calls_temporary_is_quiet(project: Path) -> None:
    commit(project, "Docs", "2024-01-01T10:00:00Z", {"docs/conf.py": ROBOTS})
    commit(
        project,
        "Adds a temporary docs banner to the Kickstarter project.",
        "2024-01-02T10:00:00Z",
        {"docs/conf.py": ROBOTS + BANNER[len(CONF) :], "docs/_static/js/kickstarter.js": BANNER_JS},
    )
    commit(
        project,
        "Removes the temporary Kickstarter banner.",
        "2024-03-03T10:00:00Z",
        {"docs/conf.py": ROBOTS, "docs/_static/js/kickstarter.js": None},
    )
    # The same file's setting taken back, with no word of "temporary": a decision.
    commit(
        project,
        "Extra files from a directory",
        "2024-03-04T10:00:00Z",
        {"docs/conf.py": ROBOTS.replace("['robots.txt']", "['_html_extra']") + BANNER[len(CONF) :]},
    )
    commit(
        project,
        "revert to the original approach to including robots.txt",
        "2024-03-05T10:00:00Z",
        {"docs/conf.py": ROBOTS + BANNER[len(CONF) :]},
    )
    cairn_json(project, "import", "git")
    found = reverts(project)
    banner = found["Removes the temporary Kickstarter banner."]
    assert any(k.startswith("docs/conf.py") for k in banner), banner
    assert set(banner.values()) == {"trivial"}, banner
    robots = found["revert to the original approach to including robots.txt"]
    assert robots and set(robots.values()) == {None}, found
    code, report = put_back(project, {"docs/conf.py": ROBOTS + BANNER[len(CONF) :]})
    assert code == 0, blocking(report)


WORKFLOW = (
    "on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make test\n"
)
TRAVIS = """\
language: go
arch:
  - s390x
  - ppc64le
script:
  - go test ./...
"""


def test_a_ci_service_left_for_another_is_quiet_the_only_ci_removed_blocks(
    project: Path, tmp_path: Path
) -> None:
    commit(
        project,
        "Shop",
        "2024-01-01T10:00:00Z",
        {"shop/prices.py": PRICES, ".github/workflows/ci.yml": WORKFLOW},
    )
    commit(project, "ci: add tests on s390x", "2024-01-02T10:00:00Z", {".travis.yml": TRAVIS})
    commit(project, "ci: Delete .travis.yml", "2024-01-10T10:00:00Z", {".travis.yml": None})
    # One workflow dropped beside the same service's others: a CI step, a decision.
    erd = ".github/workflows/erd.yml"
    commit(project, "ERD CI step", "2024-01-10T11:00:00Z", {erd: WORKFLOW.replace("test", "erd")})
    commit(project, "remove ERD CI step", "2024-01-10T12:00:00Z", {erd: None})
    commit(project, "Show the SKU", "2024-01-11T10:00:00Z", {"shop/prices.py": SKU})
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-12T10:00:00Z")
    cairn_json(project, "import", "git")
    found = reverts(project)
    assert found["ci: Delete .travis.yml"].get(".travis.yml") == "trivial", found
    assert set(found["ci: Delete .travis.yml"].values()) == {"trivial"}, found
    assert set(found['Revert "Show the SKU"'].values()) == {None}, found
    assert found["remove ERD CI step"].get(erd, "missing") is None, found
    code, report = put_back(project, {".travis.yml": TRAVIS})
    assert code == 0, blocking(report)
    # The same deletion when Travis was the project's only CI: a decision, loud.
    alone = tmp_path / "alone"
    alone.mkdir()
    git(alone, "init", "-q", "-b", "main")
    assert cairn(alone, "init").returncode == 0
    commit(alone, "Shop", "2024-01-01T10:00:00Z", {"shop/prices.py": PRICES})
    commit(alone, "ci: add tests on s390x", "2024-01-02T10:00:00Z", {".travis.yml": TRAVIS})
    commit(alone, "ci: Delete .travis.yml", "2024-01-10T10:00:00Z", {".travis.yml": None})
    cairn_json(alone, "import", "git")
    assert reverts(alone)["ci: Delete .travis.yml"].get(".travis.yml") is None, reverts(alone)


THEIRS = """\
Copyright (c) 2014 Thomas Khyn

Permission is hereby granted, free of charge, to any person obtaining a copy of
this software, to deal in the Software without restriction.
"""
OURS = THEIRS.replace("2014 Thomas Khyn", "2015 Ann Example")
TZ = """\
def get_country_timezones(code):
    zones = _TIMEZONES.get(code.upper(), [])
    return sorted(zones, key=lambda z: z.split("/")[-1])


def get_country_code_from_tz(tz):
    for code, zones in _TIMEZONES.items():
        if tz in zones:
            return code
    return None
"""


def test_a_library_bundled_with_its_own_licence_then_unbundled_is_quiet(project: Path) -> None:
    commit(
        project,
        "Shop",
        "2024-01-01T10:00:00Z",
        {"LICENSE": OURS, "shop/prices.py": PRICES, "setup.py": "install_requires = []\n"},
    )
    commit(
        project,
        "Bundle l18n and our own tz plugin",
        "2024-01-02T10:00:00Z",
        {
            "shop/utils/l18n/LICENSE.txt": THEIRS,
            "shop/utils/l18n/utils.py": TZ,
            "shop/plugins/tz/LICENSE.txt": OURS,
            "shop/plugins/tz/utils.py": PRICES,
        },
    )
    commit(
        project,
        "Unbundle the l18n library, drop the plugin",
        "2024-02-01T10:00:00Z",
        {
            "shop/utils/l18n/LICENSE.txt": None,
            "shop/utils/l18n/utils.py": None,
            "shop/plugins/tz/LICENSE.txt": None,
            "shop/plugins/tz/utils.py": None,
            "setup.py": "install_requires = ['l18n>=2018.5']\n",
        },
    )
    cairn_json(project, "import", "git")
    found = reverts(project)["Unbundle the l18n library, drop the plugin"]
    # The copy is one tree (one event on its directory), quiet; the plugin is ours.
    theirs = {k: v for k, v in found.items() if "plugins" not in k}
    ours = {k: v for k, v in found.items() if "plugins" in k and "LICENSE" not in k}
    assert theirs and set(theirs.values()) == {"trivial"}, found
    assert ours and set(ours.values()) == {None}, found
    code, report = put_back(project, {"shop/utils/l18n/utils.py": TZ})
    assert code == 0, blocking(report)


def test_which_files_and_changes_only_follow() -> None:
    for path in ("caddyfile/testdata/fuzz-1", "spec/fixtures/gem.tar", "a/__fixtures__/x.json"):
        assert is_test_data(path), path
    for path in ("tests/format/js/comments.js", "shop/fixtures.py", "testdata"):
        assert not is_test_data(path), path
    assert planned_removal("Removes the temporary Kickstarter banner.")
    assert planned_removal("Drop temporarily pinned pytest\n\nFixed upstream.")
    assert not planned_removal('Revert "Temporarily use wagtailmodelsearch package"')
    assert not planned_removal("Add a temporary banner")
    assert not planned_removal("Remove the banner\n\nIt was temporary.")
    code = ["shop/panels.py", "tests/test_panels.py"]
    tests = ["tests/test_panels.py"]
    assert left_with_code(tests, code, tests)
    go = ["shop/panels.go", "shop/panels_test.go"]
    assert left_with_code(["shop/panels_test.go"], go, ["shop/panels_test.go", "testdata/a"])
    assert not left_with_code(["tests/test_panels.py", "shop/panels.py"], code, tests)
    assert not left_with_code(tests, tests, tests)
    assert not left_with_code([], code, tests)
    # The feature's tests, matched to the commit that added the feature: a decision.
    assert not left_with_code(tests, code, code)
    assert not left_with_code(tests, code, [])
    travis, flows = [".travis.yml"], [".github/workflows/ci.yml"]
    assert ci_moved(travis, True, lambda: flows) == {".travis.yml"}
    assert ci_moved(travis, False, lambda: flows) == set()
    assert ci_moved(travis, True, lambda: ["shop/prices.py"]) == set()
    assert ci_moved(["shop/prices.py"], True, lambda: flows) == set()
    # One workflow of several dropped: a CI step, not CI moving.
    assert ci_moved([".github/workflows/erd.yml"], True, lambda: flows) == set()
    assert ci_moved(travis, True, lambda: [".travis.yml", *flows]) == {".travis.yml"}
    assert ci_service(".github/workflows/erd.yml") == ci_service(".github/workflows/ci.yml")
    assert ci_service(".travis.yml") == "travis" != ci_service("appveyor.yml")
