"""Former names (`cairn.core.aliases`) against real stores: what was decided under an
old path holds under the new one, through the session every surface reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.core.aliases import MAX_DEPTH, MAX_FORMERS, Aliases, Link
from cairn.core.findings import findings_for
from cairn.core.project import find_project
from cairn.core.session import Session
from cairn.indexer import index_text
from cairn.store import AmbiguousTarget, EventDraft, init_store

T0 = "2024-01-01T00:00:00Z"


def _project(tmp_path: Path, drafts: list[EventDraft]) -> Session:
    """A log of `drafts`; those without a date happened on T0 (before every rename)."""
    init_store(tmp_path)
    session = Session.open(find_project(tmp_path, env={}))
    for draft in drafts:
        draft.occurred_at = draft.occurred_at or T0
    session.store.append_many(drafts)
    return session


def _rename(old: str, new: str, when: str, *, both: bool = True) -> list[EventDraft]:
    out = [
        EventDraft(
            type="rename",
            entity=old,
            reasoning=f"moved to {new}",
            occurred_at=when,
            metadata={"renamed_to": new},
        )
    ]
    if both:
        out.append(
            EventDraft(
                type="rename",
                entity=new,
                reasoning=f"moved from {old}",
                occurred_at=when,
                metadata={"renamed_from": old},
            )
        )
    return out


def test_a_file_rename_carries_its_symbols_verdicts_into_status_history_and_findings(
    tmp_path: Path,
) -> None:
    session = _project(
        tmp_path,
        [
            EventDraft(
                type="add", entity="src/auth.py::legacy_token", reasoning="v1", occurred_at=T0
            ),
            EventDraft(
                type="revert",
                entity="src/auth.py::legacy_token",
                reasoning="leaked tokens into logs",
                occurred_at="2024-02-01T00:00:00Z",
            ),
            *_rename("src/auth.py", "src/session.py", "2024-03-01T00:00:00Z"),
        ],
    )
    with session:
        entity = "src/session.py::legacy_token"
        status = session.status(entity)
        assert status.status.value == "reverted"
        assert status.formerly == ("src/auth.py::legacy_token",)
        assert [v.entity for v in status.open_verdicts] == ["src/auth.py::legacy_token"]
        assert status.to_dict()["formerly"] == ["src/auth.py::legacy_token"]
        assert session.statuses([entity])[entity].status.value == "reverted"
        assert [e.type.value for e in session.history(entity)] == ["add", "revert"]
        # The file itself: its rename links are history, never a re-application.
        file_status = session.status("src/session.py")
        assert file_status.formerly == ("src/auth.py",)
        assert file_status.status.value == "active"
        assert not file_status.conflicts
        # A table's or file's children under the old name are its children now.
        assert {k: v.value for k, v in file_status.rollup.items()} == {
            "src/session.py::legacy_token": "reverted"
        }
        # The old name keeps its own history and says where it went.
        assert session.status("src/auth.py::legacy_token").formerly == ()
        assert session.renamed_to("src/auth.py::legacy_token") == entity

        symbols = index_text("def legacy_token():\n    return 1\n", "src/session.py")
        [finding] = findings_for(symbols, session.statuses([s.entity for s in symbols]))
        assert finding.entity == entity and finding.blocking
        assert "(formerly `src/auth.py::legacy_token`) was reverted" in finding.message


def test_chains_cycles_and_the_bound(tmp_path: Path) -> None:
    session = _project(
        tmp_path,
        [
            EventDraft(
                type="reject", entity="a.col", reasoning="no", alternative="x", occurred_at=T0
            ),
            *_rename("a", "b", "2024-01-02T00:00:00Z", both=False),
            *_rename("b", "c", "2024-01-03T00:00:00Z"),
            *_rename("c", "b", "2024-01-04T00:00:00Z"),  # renamed back: a cycle
        ],
    )
    with session:
        assert [f.path for f in session.formerly("c.col")] == ["b.col", "a.col"]
        assert session.status("c.col").status.value == "rejected"
        assert [f.path for f in session.formerly("b.col")] == ["c.col", "a.col"]
        assert session.status("b.col").status.value == "rejected"
    # Bounded, so a hover never walks a pathological log: so deep, so many.
    chain = Aliases(Link(f"t{i}", f"t{i + 1}", i) for i in range(100))
    found = chain.formerly("t100.x")
    assert [f.path for f in found[:2]] == ["t99.x", "t98.x"] and len(found) == MAX_DEPTH
    fan_in = Aliases(Link(f"old{i}", "t", i) for i in range(100))
    assert len(fan_in.formerly("t.x")) == MAX_FORMERS


def test_an_old_path_created_again_after_the_rename_is_another_entity(tmp_path: Path) -> None:
    session = _project(
        tmp_path,
        [
            EventDraft(type="add", entity="src/util.py::f", reasoning="f", occurred_at=T0),
            *_rename("src/util.py", "src/text.py", "2024-02-01T00:00:00Z"),
            # a new src/util.py, later: its decisions are not src/text.py's
            EventDraft(
                type="reject",
                entity="src/util.py::f",
                reasoning="another f",
                occurred_at="2024-05-01T00:00:00Z",
            ),
        ],
    )
    with session:
        status = session.status("src/text.py::f")
        assert status.status.value == "active"
        assert [e.reasoning for e in session.history("src/text.py::f")] == ["f"]


def test_supersede_through_the_new_name_reopens_the_verdict_where_it_was_decided(
    tmp_path: Path,
) -> None:
    session = _project(
        tmp_path,
        [
            EventDraft(type="revert", entity="users.flag", reasoning="broke sync", occurred_at=T0),
            *(
                EventDraft(type="reject", entity="users.note", reasoning="no", alternative=alt)
                for alt in ("text", "json")
            ),
            *_rename("users", "accounts", "2024-02-01T00:00:00Z"),
        ],
    )
    with session:
        written = session.append(
            EventDraft(type="supersede", entity="accounts.flag", reasoning="sync fixed")
        ).event
        assert written.entity == "users.flag"  # where the verdict is
        assert session.status("accounts.flag").status.value == "reopened"
        with pytest.raises(AmbiguousTarget, match=r"2 open verdicts .*--of"):
            session.append(EventDraft(type="supersede", entity="accounts.note", reasoning="x"))


def test_links_read_as_asked_give_the_answers_of_all_links_read_at_once(
    tmp_path: Path,
) -> None:
    # A command's session reads the links of the paths it meets (`Aliases.reading`,
    # from the index's rename_link table); the server's reads them all. Same answers,
    # whichever half of a rename was written, through chains, cycles, a directory, a
    # rename back, a self-link and a value that is no entity path; also after the index
    # is rebuilt from the log.
    drafts = [
        *_rename("src/a.py", "src/b.py", "2024-02-01T00:00:00Z"),
        *_rename("src/b.py", "src/c.py", "2024-03-01T00:00:00Z", both=False),
        *_rename("src/c.py", "src/a.py", "2024-04-01T00:00:00Z"),
        *_rename("lib/", "pkg/", "2024-02-02T00:00:00Z"),
        *_rename("users.mail", "users.email", "2024-02-03T00:00:00Z", both=False),
        EventDraft(
            type="rename",
            entity="users.email",
            reasoning="from an earlier name",
            occurred_at="2024-02-03T00:00:00Z",
            metadata={"renamed_from": "users.mail"},
        ),
        EventDraft(
            type="rename",
            entity="t.x",
            reasoning="nowhere",
            occurred_at="2024-02-04T00:00:00Z",
            metadata={"renamed_to": "t.x", "renamed_from": "not a path \0"},
        ),
    ]
    session = _project(tmp_path, drafts)
    paths = [
        "src/a.py::f",
        "src/b.py",
        "src/c.py::C.m",
        "pkg/x.py::g",
        "lib/x.py",
        "users.email",
        "users.mail",
        "t.x",
        "other.py",
    ]

    def answers(aliases: Aliases) -> list[object]:
        return [
            (p, aliases.formerly(p), aliases.later(p), aliases.renamed_to(p), bool(aliases))
            for p in paths
        ] + [aliases.linked(paths)]

    store = session.store
    whole = answers(Aliases.from_events(store.renames(carrying=("renamed_to", "renamed_from"))))
    assert whole == answers(Aliases.reading(store))
    assert any(formers for _p, formers, *_rest in whole[:-1])  # (the case is not empty)
    session.close()
    from cairn.store.index import remove_index

    remove_index(tmp_path / ".cairn")
    with Session.open(find_project(tmp_path, env={}), few=True) as again:
        assert whole == answers(Aliases.reading(again.store))
        assert again.formerly("src/a.py::f") == whole[0][1]


def test_a_link_on_a_bare_name_carries_its_overloads_and_one_on_an_overload_none() -> None:
    f = "src/S.java::S."
    aliases = Aliases(
        [
            Link(f + "doReturn()", f + "doNothing", 2_000),  # one overload renamed
            Link(f + "doReturn(Object)", f + "doReturn", 2_000),  # its sibling, alone now
            Link(f + "old", f + "geq", 1_000),  # a whole name renamed
        ]
    )
    assert [x.path for x in aliases.formerly(f + "doNothing")] == [f + "doReturn()"]
    assert [x.path for x in aliases.formerly(f + "doReturn")] == [f + "doReturn(Object)"]
    # an overload of `geq` today was `old` (the bare name: which overloads `old` had
    # then, the link does not say), never `old(int)`
    assert [x.path for x in aliases.formerly(f + "geq(int)")] == [f + "old"]
    assert aliases.renamed_to(f + "old(int)") == f + "geq"
    assert aliases.renamed_to(f + "doReturn(int)") is None


def test_an_overload_under_a_bare_link_keeps_its_own_former_path_by_its_class() -> None:
    old, new = "src/Spdy.java::Spdy.", "src/Framed.java::Framed."
    aliases = Aliases(
        [
            Link(old + "newStream", new + "newStream", 1_000),  # a decision on every overload
            Link("src/Spdy.java::Spdy", "src/Framed.java::Framed", 1_000),  # class with file
        ]
    )
    assert [x.path for x in aliases.formerly(new + "newStream(int,List)")] == [
        old + "newStream",
        old + "newStream(int,List)",
    ]
    assert [x.path for x in aliases.formerly(new + "newStream")] == [old + "newStream"]


def test_a_container_link_carries_back_only_the_members_its_old_file_declared() -> None:
    old, new = "src/Old.java::Old", "src/New.java::New"
    declared = {  # the old file: `put` overloaded, `get` alone with its parameter types
        "Old": "",
        "Old.put": "",
        "Old.put(int)": "",
        "Old.put(String)": "",
        "Old.get": "(int)",
    }
    listed = Aliases([Link(old, new, 1_000, declared)])
    said = {
        "put(int)": [old + ".put(int)"],  # an overload that was there
        "put(double)": [],  # a sibling added after the rename: no former path
        "get(int)": [old + ".get"],  # `get` gained a sibling later: its bare name then
        "get(String)": [],  # the sibling `get` gained: it was not there
        "size": [],  # a method added after the rename
        "put": [old + ".put"],  # every overload: the bare name they shared
    }
    for member, formers in said.items():
        assert [f.path for f in listed.formerly(f"{new}.{member}")] == formers, member
    assert [f.path for f in listed.formerly(new)] == [old]  # the container itself
    # A link that lists nothing (an older log, a rename someone recorded) carries all.
    silent = Aliases([Link(old, new, 1_000)])
    assert [f.path for f in silent.formerly(new + ".size")] == [old + ".size"]
