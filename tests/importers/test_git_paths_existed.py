"""Former paths that existed (issue 30): a class renamed with its file carries back only
the members the old file declared. A method added after the rename has no former path,
and an overload whose sibling came after the rename goes back to the bare name the old
file had, never to a suffixed path the old file never held."""

from __future__ import annotations

from pathlib import Path

from real_cli import cairn_json, commit, git

from cairn.core.aliases import Aliases
from cairn.store import EventDraft, Store

POOL = """\
package a;
public class {name} {{
    public Connection get(int timeout) {{
        Connection c = idle.poll(timeout, TimeUnit.MILLISECONDS);
        return c == null ? open(address, timeout) : c;
    }}
    public void release(Connection c) {{
        idle.offer(c);
        metrics.released(c.id());
    }}
{more}}}
"""
LATER = """\
    public Connection get(String route) {
        return get(routes.timeoutOf(route));
    }
    public int size() {
        return idle.size() + busy.size();
    }
"""
OLD, NEW = "src/a/HttpConnectionPool.java", "src/a/ConnectionPool.java"


def _formerly(root: Path, entity: str) -> dict[str, list[str]]:
    """The former paths of `entity` as a command reads them (links read as asked) and as
    the language server reads them (every rename event at once): the same rule."""
    with Store.open(root / ".cairn") as store:
        renames = [e for ent in store.entities() for e in store.history(ent)]
        read = [f.path for f in Aliases.reading(store).formerly(entity)]
    whole = Aliases.from_events(e for e in renames if e.type == "rename")
    return {"reading": read, "from_events": [f.path for f in whole.formerly(entity)]}


def test_a_renamed_class_carries_back_only_what_its_old_file_declared(project: Path) -> None:
    commit(
        project,
        "Pool",
        "2024-01-01T10:00:00Z",
        {OLD: POOL.format(name="HttpConnectionPool", more="")},
    )
    with Store.open(project / ".cairn") as store:  # history on the file, so its rename is followed
        store.append(
            EventDraft(
                type="reject",
                entity=f"{OLD}::HttpConnectionPool.release",
                reasoning="no pool-wide lock here",
                alternative="a lock",
            )
        )
    git(project, "rm", "-q", OLD)
    commit(
        project,
        "Pool for every protocol",
        "2024-02-01T10:00:00Z",
        {NEW: POOL.format(name="ConnectionPool", more="")},
    )
    # After the rename: a sibling overload of `get` (so `get` is now `get(int)`) and a
    # method the old file never had.
    commit(
        project,
        "Routes and size",
        "2024-03-01T10:00:00Z",
        {NEW: POOL.format(name="ConnectionPool", more=LATER)},
    )
    cairn_json(project, "import", "git")

    old = f"{OLD}::HttpConnectionPool"
    expected = {
        # existed in the old file as it was: carried back as it was
        "release": [f"{old}.release"],
        # the old file had `get` alone: its bare name, not `get(int)`, which never was
        "get(int)": [f"{old}.get"],
        # neither existed before the rename: no former path at all
        "get(String)": [],
        "size": [],
    }
    for member, formers in expected.items():
        found = _formerly(project, f"{NEW}::ConnectionPool.{member}")
        assert found == {"reading": formers, "from_events": formers}, member
    # The class and the file themselves are still carried.
    assert _formerly(project, f"{NEW}::ConnectionPool")["reading"] == [old]
    assert _formerly(project, NEW)["reading"] == [OLD]
