"""Overloads in a real git history: `cairn import git` follows one overload by its
parameter types (renamed while a sibling keeps the name; left alone when its sibling
goes), and the real `cairn check` flags only the overload decided on."""

from __future__ import annotations

import json
from pathlib import Path

from real_cli import cairn, cairn_json, commit

from cairn.store import EventDraft, Store

STUBBER = """\
package a;
class Stubber {
    Stubber doReturn() {
        answers.add(new Returns(null));
        registry.remember(answers.size(), "void answer");
        return this;
    }
    Stubber doReturn(Object value) {
        answers.add(new Returns(value));
        registry.remember(answers.size(), value.toString());
        return this;
    }
}
"""
ASSERT = """\
package a;
class Assert {
    static void geq(double actual, double floor) {
        check(actual >= floor, "too small");
    }
    static void geq(int actual, int floor) {
        check(actual >= floor, "too small");
    }
}
"""
F = "src/a/Stubber.java"


def _decide(root: Path, entity: str, why: str) -> None:
    with Store.open(root / ".cairn") as store:
        store.append(EventDraft(type="reject", entity=entity, reasoning=why, alternative="x"))


def _links(root: Path) -> dict[str, tuple[str, str]]:
    """old path -> (new path, change) of every element link the import recorded."""
    with Store.open(root / ".cairn") as store:
        events = [e for ent in store.entities() for e in store.history(ent)]
    return {
        e.entity.split("::")[1]: (e.metadata["renamed_to"].split("::")[1], e.metadata["change"])
        for e in events
        if e.type == "rename" and "renamed_to" in e.metadata and "::" in e.entity
    }


def test_one_overload_renamed_while_its_sibling_keeps_the_name(project: Path) -> None:
    commit(project, "Stubber", "2024-01-01T10:00:00Z", {F: STUBBER})
    _decide(project, f"{F}::Stubber.doReturn()", "a void answer hides a missing stub")
    _decide(project, f"{F}::Stubber.doReturn(Object value)", "values must be copied")
    renamed = STUBBER.replace("Stubber doReturn() {", "Stubber doNothing() {")
    commit(project, "doReturn() is doNothing()", "2024-01-02T10:00:00Z", {F: renamed})

    cairn_json(project, "import", "git")
    # Each overload is followed by its own parameters: the no-argument one to its new
    # name; the other, alone under its name now, to the bare path (one overload, no
    # sibling to tell apart); neither is mistaken for the other.
    assert _links(project) == {
        "Stubber.doReturn()": ("Stubber.doNothing", "rename"),
        "Stubber.doReturn(Object)": ("Stubber.doReturn", "signature"),
    }
    # Each today's name has only its own overload's past: a decision on one overload is
    # not one on its sibling.
    for today, former in (("doNothing", "doReturn()"), ("doReturn", "doReturn(Object)")):
        status = cairn_json(project, "status", f"{F}::Stubber.{today}")
        assert status["formerly"] == [f"{F}::Stubber.{former}"]


def test_a_decision_on_the_bare_name_needs_no_link_when_an_overload_arrives(
    project: Path,
) -> None:
    one = STUBBER.split("    Stubber doReturn(Object")[0] + "}\n"
    commit(project, "Stubber", "2024-01-01T10:00:00Z", {F: one})
    _decide(project, f"{F}::Stubber.doReturn", "every doReturn answers in order")
    commit(project, "doReturn(Object)", "2024-01-02T10:00:00Z", {F: STUBBER})
    cairn_json(project, "import", "git")
    assert _links(project) == {}  # `Stubber.doReturn` still names both overloads


def _check(root: Path) -> list[dict]:
    proc = cairn(root, "check", "--diff", "HEAD", "--json")
    assert proc.returncode in (0, 1), proc.stderr
    return [f for f in json.loads(proc.stdout)["findings"] if f["kind"] == "verdict"]


def test_check_flags_only_the_overload_decided_on(project: Path) -> None:
    path = project / "src/a/Assert.java"
    commit(project, "Assert", "2024-01-01T10:00:00Z", {"src/a/Assert.java": ASSERT})
    _decide(project, "src/a/Assert.java::Assert.geq(double, double)", "NaN must fail")

    path.write_text(
        ASSERT.replace(
            'actual >= floor, "too small");\n    }\n}', 'actual >= floor, "below");\n    }\n}'
        )
    )
    assert _check(project) == []  # the int overload changed: not the one decided on

    path.write_text(ASSERT.replace('"too small");', '"below");', 1))
    [found] = _check(project)
    assert found["entity"] == "src/a/Assert.java::Assert.geq(double,double)"


def test_a_decision_on_the_bare_name_follows_a_move_to_the_bare_name(project: Path) -> None:
    commit(project, "Stubber", "2024-01-01T10:00:00Z", {F: STUBBER})
    _decide(project, f"{F}::Stubber.doReturn", "every doReturn answers in order")
    moved = STUBBER.replace("class Stubber", "class Answers").replace("Stubber ", "Answers ")
    commit(
        project,
        "Stubber is Answers",
        "2024-01-02T10:00:00Z",
        {F: None, "src/a/Answers.java": moved},
    )
    cairn_json(project, "import", "git")
    # not to one overload (`Answers.doReturn(Object)`): the bare name is all of them
    assert _links(project) == {
        "Stubber": ("Answers", "rename"),  # the class, renamed with its file
        "Stubber.doReturn": ("Answers.doReturn", "container"),
    }
