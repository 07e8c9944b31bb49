"""`cairn export html OUT/` through the real CLI: what the files hold, and what it refuses.

The browser side (search, filters, the timeline as drawn) is test_site_in_chromium.py.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from site_fixtures import (
    HOSTILE,
    NOTE_REASON,
    REJECT_REASON,
    REVERT_REASON,
    SECRET_REASON,
    cairn,
    make_project,
)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_project(tmp_path_factory.mktemp("site") / "shop")


@pytest.fixture(scope="module")
def site(project: Path) -> Path:
    out = project.parent / "site"
    proc = cairn(project, "export", "html", str(out))
    assert "wrote 8 entity pages (14 events)" in proc.stderr
    return out


def page_of(site: Path, entity: str) -> str:
    index = json.loads((site / "search.json").read_text())
    (row,) = [r for r in index["entities"] if r["path"] == entity]
    return (site / row["page"]).read_text()


def anchors(text: str) -> set[str]:
    return set(re.findall(r'id="(ev-[0-9a-f]+)"', text))


def test_every_file_is_local_and_nothing_is_fetched_from_a_network(site: Path) -> None:
    files = [p for p in site.rglob("*") if p.is_file()]
    assert {p.name for p in files} >= {
        "index.html",
        "tree.html",
        "search.json",
        "meta.js",
        "site.js",
    }
    for path in files:
        text = path.read_text()
        assert "http:" not in text and "https:" not in text, path
        assert not re.search(r"""(src|href)=["']//""", text), path
    for page in site.rglob("*.html"):
        for ref in re.findall(r"""(?:src|href)="([^"#]+)""", page.read_text()):
            assert (page.parent / ref).resolve().is_file(), f"{page.name} links {ref}"


def test_untrusted_text_is_escaped_everywhere(site: Path) -> None:
    page = page_of(site, "src/payments.py::Refunds.issue")
    assert "<script>alert" not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt;" in page
    # the same text, inside the timeline's SVG tooltip, is escaped too
    assert page.count("&lt;img src=x onerror=alert(1)&gt;") >= 2
    # the search data is loaded as scripts: none must be able to close one
    pieces = list((site / "search").glob("*.js"))
    assert pieces and not any("</script>" in p.read_text() for p in pieces)
    assert any("\\u003cscript>alert" in p.read_text() for p in pieces)
    data = json.loads((site / "search.json").read_text())
    texts = [e["text"] for r in data["entities"] for e in r["events"]]
    assert HOSTILE in texts  # kept verbatim as data; the browser sets it as text


def test_redacted_events_show_as_redacted_and_their_text_is_nowhere(site: Path) -> None:
    page = page_of(site, "env/STAGING_URL")
    assert "[redacted] Its content was erased" in page
    assert "A password slipped into the reasoning" in page  # why it was erased (kept)
    for path in site.rglob("*"):
        if path.is_file():
            assert "hunter2" not in path.read_text(), path
    assert SECRET_REASON not in (site / "search.json").read_text()


def test_entity_page_has_a_linked_timeline_and_supersede_links(site: Path) -> None:
    page = page_of(site, "src/payments.py::charge")
    svg = page.split('<svg class="timeline"', 1)[1].split("</svg>", 1)[0]
    marks = re.findall(r'<a href="#(ev-[0-9a-f]+)" class="mark m-(\w+)">', svg)
    assert sorted(kind for _, kind in marks) == ["applied", "supersede", "superseded"]
    assert {a for a, _ in marks} == anchors(page)  # every mark lands on its event
    assert 'class="reopen"' in svg  # the supersede is joined to the verdict it re-opened
    assert REJECT_REASON in page and "Rejected approach: Store encrypted card numbers" in page
    # the verdict links forward to its supersede and the supersede back to the verdict
    reopened_by = re.search(r'Re-opened by <a href="([^"]+)"', page)
    reopens = re.search(r'Re-opens <a href="([^"]+)"', page)
    assert reopened_by and reopens
    for href in (reopened_by.group(1), reopens.group(1)):
        assert href.startswith("#ev-") and href[1:] in anchors(page)  # same page
    dates = re.findall(r'class="tick-label"[^>]*>([0-9-]+)<', svg)
    assert dates[0] == "2024-02-01" and dates[-1] == "2025-02-03"


def test_reverted_column_page_and_revert_link(site: Path) -> None:
    page = page_of(site, "users.email_verified")
    assert "Open verdicts" in page and REVERT_REASON in page
    assert re.search(r'Undoes <a href="#ev-[0-9a-f]+">', page)
    assert '<span class="badge s-reverted">reverted</span>' in page
    # a reason added later (cairn annotate) sits on its own lane and links its event
    assert 'class="mark m-note"' in page and ">notes</text>" in page
    assert NOTE_REASON in page and re.search(r'A reason for <a href="#ev-[0-9a-f]+">', page)
    # breadcrumbs up the tree: the table
    assert re.search(r'All decisions</a> › <a href="../e/users-[0-9a-f]+\.html">', page)


def test_index_has_tree_filters_and_integrity(project: Path, site: Path) -> None:
    index = (site / "index.html").read_text()
    verify = json.loads(cairn(project, "verify", "--json").stdout)
    assert "✓ The log verifies: 14 events" in index
    for head in verify["heads"]:
        assert f"<code>{head}</code>" in index
    for name, count in (
        ("reverted", 1),
        ("rejected", 0),
        ("conflict", 1),
        ("reopened", 1),
        ("removed", 0),
    ):
        assert f'data-filter="{name}" aria-pressed="false">{name} <span>{count}</span>' in index
    assert 'data-filter="due" aria-pressed="false">due <span>1</span>' in index
    assert '<a href="tree.html">entity tree</a>' in index
    tree = (site / "tree.html").read_text().split('id="tree"', 1)[1]
    # tables -> columns; files -> classes -> methods, with parents that have no history
    assert re.search(
        r"<h3>Tables</h3><ul><li><code class=\"plain\">orders</code><ul><li><a [^>]+>"
        r"<code>orders.legacy_total</code>",
        tree,
    )
    files = tree.split("<h3>Files</h3>", 1)[1]
    assert files.index("src/payments.py</code><ul>") < files.index("src/payments.py::Refunds<")
    assert files.index("src/payments.py::Refunds<") < files.index("src/payments.py::Refunds.issue")
    rows = re.findall(
        r'<li class="row" data-path="([^"]+)" data-status="(\w+)" data-due="(\d)"', index
    )
    assert ("orders.legacy_total", "active", "1") in rows
    assert ("deps/left-pad", "conflict", "0") in rows


def test_export_is_deterministic_and_replaces_its_previous_output(
    project: Path, site: Path
) -> None:
    before = {p.relative_to(site): p.read_bytes() for p in site.rglob("*") if p.is_file()}
    (site / "e" / "stale.html").write_text("left from an older export")
    cairn(project, "export", "html", str(site))
    after = {p.relative_to(site): p.read_bytes() for p in site.rglob("*") if p.is_file()}
    assert after == before
    assert not [p for p in site.parent.iterdir() if p.name.startswith(".site.")]


def test_tampered_log_is_reported_on_the_index(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p")
    log = project / ".cairn" / "decisions.jsonl"
    log.write_text(log.read_text().replace("Login by e-mail", "Login by phone"))
    proc = cairn(project, "export", "html", str(tmp_path / "out"))
    assert "does not verify" in proc.stderr
    index = (tmp_path / "out" / "index.html").read_text()
    assert "✗ The log does not verify" in index


@pytest.mark.parametrize("where", ["foreign", "file", "inside-cairn", "no-parent"])
def test_refuses_an_unusable_output_folder(tmp_path: Path, where: str) -> None:
    project = tmp_path / "p"
    project.mkdir()
    cairn(project, "init")
    targets = {
        "foreign": tmp_path / "mine",
        "file": tmp_path / "notes.txt",
        "inside-cairn": project / ".cairn" / "site",
        "no-parent": tmp_path / "missing" / "site",
    }
    out = targets[where]
    if where == "foreign":
        out.mkdir()
        (out / "keep.txt").write_text("mine")
    if where == "file":
        out.write_text("mine")
    proc = cairn(project, "export", "html", str(out), check=False)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("cairn: error: ") and proc.stderr.count("\n") == 1
    assert "Traceback" not in proc.stderr
    if where == "foreign":
        assert [p.name for p in out.iterdir()] == ["keep.txt"]
    if where == "file":
        assert out.read_text() == "mine"
    if where == "inside-cairn":
        assert not out.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no staging left
