"""No markup from stored text (issue 35, item 7): a reason, an author or an imported
name holding a link, a `command:` URI, HTML, backticks or a heading renders as the
characters it holds in the real hover, the history view and the Markdown export; the
only links are the ones Cairn makes. Markdown is rendered with markdown-it (CommonMark,
what editors' renderers follow), so the test sees what a reader would."""

from __future__ import annotations

import html
import re
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types
from markdown_it import MarkdownIt
from pytest_lsp import ClientServerConfig, LanguageClient
from real_cli import cairn

from cairn.core.present import history_markdown, md_code, md_text
from cairn.store import EventDraft, Store, init_store

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lsp"))
from lsp_helpers import SERVER_ENV, initialize, make_client, open_doc

# What a log shipped with a repository can say, all at once.
HOSTILE = (
    "See [Full history](command:cairn.supersede?%5B%7B%22entity%22%3A%22x%22%7D%5D) "
    '<img src=x onerror="alert(1)"> [js](javascript:alert(1)) <script>steal()</script> '
    "`rm -rf` **loud** https://evil.example/a www.evil.example &lt;b&gt; ![i](http://x/y.png)"
)
HOSTILE_LINES = HOSTILE + "\n# Heading\n- item\n1. first\n> quote\n===\n[ref]: command:cairn.log"
MARKDOWN = MarkdownIt("commonmark").enable(["table", "strikethrough"])
TAGS = re.compile(r"<(/?)([a-z0-9]+)[^>]*>")


def rendered(markdown: str) -> str:
    return MARKDOWN.render(markdown)


def tags(html_text: str) -> set[str]:
    return {m.group(2) for m in TAGS.finditer(html_text)}


def links(html_text: str) -> list[str]:
    return [html.unescape(h) for h in re.findall(r'<a href="([^"]*)"', html_text)]


def visible(html_text: str) -> str:
    """The text a reader sees: tags dropped, entities decoded, whitespace folded."""
    return " ".join(html.unescape(TAGS.sub(" ", html_text)).split())


def assert_inert(
    html_text: str, allowed_links: tuple[str, ...] = (), headings: tuple[str, ...] = ()
) -> None:
    made = {"img", "script", "h1", "h2", "h3", "ol", "blockquote"} - set(headings)
    assert not tags(html_text) & made
    for href in links(html_text):
        assert href.startswith(allowed_links), href
    assert "steal()" in visible(html_text)  # the words are there, as words


# --- the escaping function itself ---------------------------------------------------------

printable = st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E) | st.just(" "))


@settings(max_examples=300, deadline=None)
@given(printable.map(str.strip).filter(bool))
def test_any_ascii_text_renders_as_exactly_itself(text: str) -> None:
    out = rendered(md_text(text))
    assert tags(out) == {"p"}, out
    assert visible(out) == " ".join(text.split())


@settings(max_examples=200, deadline=None)
@given(printable.map(str.strip).filter(bool))
def test_a_code_span_holds_any_backticks(text: str) -> None:
    out = rendered(md_code(text))
    assert tags(out) == {"p", "code"}, out
    assert visible(out) == " ".join(text.split())


def test_block_markers_at_a_line_start_stay_text() -> None:
    out = rendered(md_text(HOSTILE_LINES))
    assert_inert(out)
    assert tags(out) == {"p"}, out
    assert "# Heading" in visible(out) and "1. first" in visible(out)


# --- the real server's hover -----------------------------------------------------------------

SOURCE = "def pay(amount):\n    return amount\n"


@pytest.fixture
def hostile_project(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    root.mkdir()
    (root / "app.py").write_text(SOURCE)
    init_store(root)
    with Store.open(root / ".cairn") as store:
        added = store.append(
            EventDraft(type="add", entity="app.py::pay", reasoning=HOSTILE, author="[x](command:a)")
        ).event.id
        store.append(
            EventDraft(
                type="revert",
                entity="app.py::pay",
                reverts=added,
                reasoning=HOSTILE_LINES,
                alternative="<img src=y onerror=alert(2)>",
                author="Mallory<b>bold</b> <m@evil.example>",
            )
        )
    return root


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=[sys.executable, "-m", "cairn.lsp"],
        server_env=SERVER_ENV,
        client_factory=make_client,
    ),
)
async def client(lsp_client: LanguageClient) -> AsyncIterator[None]:
    yield
    await lsp_client.shutdown_session()


async def test_a_hostile_reason_is_inert_in_the_real_hover(
    client: LanguageClient, hostile_project: Path
) -> None:
    await initialize(client, hostile_project)
    uri = open_doc(client, hostile_project / "app.py", "python")
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=0, character=5),
        )
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    out = rendered(hover.contents.value)
    # Cairn's own link is there; the planted `cairn.supersede` one is only words
    assert_inert(out, allowed_links=("command:cairn.history?",))
    assert any(h.startswith("command:cairn.history?") for h in links(out))
    assert "[Full history](command:cairn.supersede" in visible(out)
    assert "<b>" not in out and "by Mallory<b>bold</b>" in visible(out)


def test_the_history_view_keeps_every_line_inert(hostile_project: Path) -> None:
    with Store.open(hostile_project / ".cairn") as store:
        events = store.history("app.py::pay")
    out = rendered(history_markdown("app.py::pay", events))
    assert_inert(out, headings=("h1", "h2"))
    assert out.count("<h1>") == 1 and out.count("<h2>") == 2  # the view's own, one per event
    assert links(out) == []
    assert "# Heading" in visible(out) and "onerror=alert(2)" in visible(out)


# --- the real CLI's exports ---------------------------------------------------------------------


def test_the_markdown_export_is_inert(hostile_project: Path) -> None:
    proc = cairn(hostile_project, "export", "markdown")
    assert proc.returncode == 0, proc.stderr
    out = rendered(proc.stdout)
    assert_inert(out, headings=("h1", "h2"))
    assert out.count("<h1>") == 1 and out.count("<h2>") == 1  # the export's, one per entity
    assert links(out) == []
    assert "[js](javascript:alert(1))" in visible(out)


def test_an_imported_record_link_cannot_carry_a_scheme(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    init_store(root)
    with Store.open(root / ".cairn") as store:
        store.append(
            EventDraft(
                type="add",
                entity="app.py::pay",
                reasoning="from an ADR",
                metadata={"adr": "javascript:alert(1)//docs/adr/1.md"},
            )
        )
    proc = cairn(root, "export", "markdown")
    assert proc.returncode == 0, proc.stderr
    [href] = links(rendered(proc.stdout))
    assert href.startswith("javascript%3A")  # a relative file name, never a scheme


def test_the_site_escapes_the_same_text(hostile_project: Path) -> None:
    proc = cairn(hostile_project, "export", "html", "site")
    assert proc.returncode == 0, proc.stderr
    pages = "".join(p.read_text() for p in (hostile_project / "site").rglob("*.html"))
    assert "<img src=x" not in pages and "<script>steal" not in pages
    assert "&lt;img src=x" in pages or "\\u003cimg src=x" in pages
