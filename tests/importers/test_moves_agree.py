"""`cairn ls`, `cairn status`, the site, the digest and MCP `cairn_why` agree on a real git
history with a move and a deleted file (issue 29 item 4): one listing rule
(`cairn.core.listing`)."""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path

from real_cli import cairn, cairn_json, commit, git

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agents"))
from mcp_helpers import mcp_session, text_of

AUTH = "def login(user):\n    return check_password(user)\n"
LEGACY = """

def legacy_token(user):
    token = base64_encode(user.id, user.secret)
    audit_log.write("legacy token", user.id)
    return token
"""
HELPER = "def helper():\n    return 1\n"
CACHED = "def helper():\n    cache = {}\n    return cache.get(1, 1)\n"

ROW = re.compile(r'<li class="row" data-path="([^"]*)" data-status="([^"]*)"[^>]*>(.*?)</li>')


def history(root: Path) -> None:
    commit(root, "Auth", "2024-01-01T10:00:00Z", {"src/auth.py": AUTH})
    # A revert of a file itself (not of a symbol in it): its move must not read as
    # re-applying what was reverted.
    commit(root, "Deploy", "2024-01-01T10:00:00Z", {"deploy.cfg": "replicas = 2\n"})
    commit(root, "Deploy wider", "2024-01-01T11:00:00Z", {"deploy.cfg": "replicas = 9\n"})
    git(root, "revert", "--no-edit", "HEAD", date="2024-01-01T12:00:00Z")
    git(root, "mv", "deploy.cfg", "ops.cfg")
    git(root, "commit", "-q", "-m", "Deploy config moves", date="2024-01-01T13:00:00Z")
    commit(root, "Legacy tokens", "2024-01-02T10:00:00Z", {"src/auth.py": AUTH + LEGACY})
    git(root, "revert", "--no-edit", "HEAD", date="2024-01-03T10:00:00Z")
    git(root, "mv", "src/auth.py", "src/session.py")
    git(root, "commit", "-q", "-m", "Auth becomes session", date="2024-02-01T10:00:00Z")
    commit(root, "Helper", "2024-02-02T10:00:00Z", {"src/old.py": HELPER})
    commit(root, "Helper caches", "2024-02-03T10:00:00Z", {"src/old.py": CACHED})
    git(root, "revert", "--no-edit", "HEAD", date="2024-02-04T10:00:00Z")
    commit(root, "Drop old", "2024-02-05T10:00:00Z", {"src/old.py": None})


def test_ls_status_site_and_digest_agree_after_a_move(project: Path, tmp_path: Path) -> None:
    history(project)
    cairn_json(project, "import", "git")

    # ls: the moved entities under their new names, naming the old ones; no old path,
    # no conflict; the deleted file's function says its file is gone.
    listed = {r["entity"]: r for r in cairn_json(project, "ls")}
    assert not [e for e in listed if e.startswith(("src/auth.py", "deploy.cfg"))]
    assert "conflict" not in {r["status"] for r in listed.values()}
    token = listed["src/session.py::legacy_token"]
    assert (token["status"], token["formerly"]) == ("reverted", ["src/auth.py::legacy_token"])
    assert listed["src/session.py"]["formerly"] == ["src/auth.py"]
    assert (listed["ops.cfg"]["status"], listed["ops.cfg"]["formerly"]) == (
        "reverted",
        ["deploy.cfg"],
    )
    helper = listed["src/old.py::helper"]
    assert helper["file_removed"] and helper["status"] == "reverted"
    assert not any(r["file_removed"] for e, r in listed.items() if e != "src/old.py::helper")
    text = cairn(project, "ls").stdout
    assert "formerly src/auth.py::legacy_token" in text and "file removed" in text

    # The old path, asked for by name, keeps its verdict: the move is not a conflict.
    old = cairn_json(project, "status", "deploy.cfg")
    assert (old["status"], old["moved_to"]) == ("reverted", "ops.cfg")
    assert "moved to ops.cfg" in cairn(project, "status", "deploy.cfg").stdout

    # status: the same status, event count and former paths for every listed entity.
    for entity, row in listed.items():
        status = cairn_json(project, "status", entity)
        assert (status["status"], status["event_count"]) == (row["status"], row["events"])
        assert status["formerly"] == row["formerly"]
        assert status["file_removed"] == row["file_removed"]
    assert "src/old.py::helper  reverted · file removed  (2 decisions)" in (
        cairn(project, "status", "src/old.py::helper").stdout
    )

    # the site: the same rows with the same statuses, and it says what ls says.
    out = tmp_path / "site"
    assert cairn(project, "export", "html", str(out)).returncode == 0
    rows = {
        html.unescape(p): (s, body) for p, s, body in ROW.findall((out / "index.html").read_text())
    }
    assert {p: s for p, (s, _) in rows.items()} == {e: r["status"] for e, r in listed.items()}
    assert "file removed" in rows["src/old.py::helper"][1]
    assert (
        "formerly <code>src/auth.py::legacy_token</code>" in rows["src/session.py::legacy_token"][1]
    )

    # the Markdown export: the same entities, under the same names.
    markdown = cairn(project, "export", "markdown").stdout
    assert set(re.findall(r"^## `([^`]+)`", markdown, re.M)) == set(listed)
    assert "formerly `src/auth.py::legacy_token`" in markdown
    assert "**reverted · file removed**" in markdown

    # the digest: the branch touches the moved file; every line names a listed entity,
    # with its former name or the gone file said.
    (project / "src/session.py").write_text(AUTH + "# touched\n")
    digest = cairn_json(project, "digest")
    seen = {(i["entity"], i["note"]) for i in digest["items"]}
    assert {i["entity"] for i in digest["items"]} <= set(listed)
    assert ("src/session.py::legacy_token", "formerly src/auth.py::legacy_token") in seen
    assert ("src/old.py::helper", "file removed") in seen
    assert "src/auth.py::legacy_token (formerly" not in digest["text"]
    assert "- src/session.py::legacy_token (formerly src/auth.py::legacy_token)" in digest["text"]


async def test_mcp_and_search_name_moves_as_ls_and_status_do(project: Path) -> None:
    """The agent's `cairn_why` and `cairn_search` over the real MCP server and `cairn
    search`, on the same history: a moved entity is answered under its new name with its
    former one, an old path points at the new one, a function whose file is gone says
    so, and a search hit on the old path is named by the new one."""
    history(project)
    cairn_json(project, "import", "git")
    listed = {r["entity"]: r for r in cairn_json(project, "ls")}
    asked = ["src/session.py::legacy_token", "ops.cfg", "deploy.cfg", "src/old.py::helper"]
    async with mcp_session(project) as session:
        answer = await session.call_tool("cairn_why", {"entities": asked})
        found = await session.call_tool("cairn_search", {"query": "legacy tokens"})
    assert not answer.is_error
    text = text_of(answer)
    data = answer.structured_content
    assert data is not None
    why = {r["entity"]: r for r in data["entities"]}
    for entity in ("src/session.py::legacy_token", "ops.cfg", "src/old.py::helper"):
        row = listed[entity]
        assert (why[entity]["status"], why[entity]["event_count"]) == (row["status"], row["events"])
        assert why[entity]["formerly"] == row["formerly"]
        assert why[entity]["file_removed"] == row["file_removed"]
    assert (
        "src/session.py::legacy_token: reverted (1 decision)\n  formerly src/auth.py::legacy_token"
        in text
    )
    assert "src/old.py::helper: reverted · file removed (2 decisions)" in text
    # asked by its old path: where it went, as `cairn status deploy.cfg` says
    old = cairn_json(project, "status", "deploy.cfg")
    assert why["deploy.cfg"]["moved_to"] == old["moved_to"] == "ops.cfg"
    assert "deploy.cfg: reverted (2 decisions)\n  moved to ops.cfg" in text

    # search, in the CLI and over MCP: the revert made on the old path, named by the new
    hit = cairn_json(project, "search", "legacy tokens")[0]
    assert hit["entity"] == "src/auth.py::legacy_token"  # the event as it was recorded
    assert (hit["named"], hit["note"]) == (
        "src/session.py::legacy_token",
        "formerly src/auth.py::legacy_token",
    )
    line = "src/session.py::legacy_token (formerly src/auth.py::legacy_token) revert 2024-01-03"
    assert cairn(project, "search", "legacy tokens").stdout.startswith(line)
    assert text_of(found).startswith(line)
    assert found.structured_content is not None
    [mcp_hit] = [h for h in found.structured_content["hits"] if h["id"] == hit["id"]]
    assert (mcp_hit["named"], mcp_hit["note"]) == (hit["named"], hit["note"])
