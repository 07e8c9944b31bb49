"""The exported site in Debian's headless Chromium, opened from the file system.

What a reader does: searches for a reason, filters to reverted entities, opens an
entity and follows its timeline. Screenshots are saved as test artefacts under
test-results/site/ (and into docs/images/ when CAIRN_DOCS_IMAGES=1, which is how the
README's pictures are made).

Without Chromium the test is skipped on a developer's machine, and fails where
CAIRN_REQUIRE_CHROMIUM is set: .ci/run installs Chromium and sets it, so CI cannot
skip it silently.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from cdp_browser import Browser, chromium_binary
from site_fixtures import HOSTILE, REVERT_REASON, cairn, make_project

from cairn.site.entity_list import PAGE
from cairn.site.search_files import DOC_SHARD
from cairn.store import EventDraft, Store, init_store

REPO = Path(__file__).resolve().parents[2]
ARTEFACTS = Path(os.environ.get("CAIRN_TEST_ARTEFACTS", REPO / "test-results")) / "site"


def _binary() -> str:
    binary = chromium_binary()
    if binary is None or not Path(binary).exists():
        if os.environ.get("CAIRN_REQUIRE_CHROMIUM"):
            pytest.fail(
                "CAIRN_REQUIRE_CHROMIUM is set but Chromium is missing: apt-get install chromium"
            )
        pytest.skip("Chromium is not installed (apt-get install chromium); CI installs it")
    return binary


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = make_project(tmp_path_factory.mktemp("chromium") / "shop")
    out = project.parent / "site"
    cairn(project, "export", "html", str(out))
    return out


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    opened = Browser(_binary())
    opened.viewport(1100, 860)
    yield opened
    opened.close()


def shot(browser: Browser, name: str, *, full_page: bool = False) -> None:
    path = browser.screenshot(ARTEFACTS / f"{name}.png", full_page=full_page)
    assert path.stat().st_size > 10_000  # a real picture, not a blank page
    if os.environ.get("CAIRN_DOCS_IMAGES"):
        shutil.copyfile(path, REPO / "docs" / "images" / f"site-{name}.png")


def visible_rows(browser: Browser) -> list[str]:
    return list(
        browser.js(
            "[...document.querySelectorAll('#results li.row')].filter(r => !r.hidden)"
            ".map(r => r.dataset.path)"
        )
    )


def open_index(browser: Browser, site: Path) -> None:
    browser.open((site / "index.html").as_uri())
    browser.wait_for("document.documentElement.dataset.ready === '1'", "the site script ran")


def test_search_finds_a_reason(browser: Browser, site: Path) -> None:
    open_index(browser, site)
    assert len(visible_rows(browser)) == 8
    browser.type_text("#q", "why were the mails bounced")
    browser.wait_for(
        "document.getElementById('summary').textContent.startsWith('2 of 8')",
        "the search narrowed the list",
    )
    # ranked: both words before "mail" alone (users.email's "Login by e-mail")
    assert visible_rows(browser) == ["users.email_verified", "users.email"]
    snippet = browser.js("document.querySelector('li.row:not([hidden]) .snippet').textContent")
    assert snippet == f"revert 2024-04-15: {REVERT_REASON}"
    assert browser.js("location.hash") == "#q=why%20were%20the%20mails%20bounced"
    shot(browser, "search")


def test_filter_shows_only_reverted_entities(browser: Browser, site: Path) -> None:
    open_index(browser, site)
    browser.click('.chip[data-filter="reverted"]')
    browser.wait_for(
        "document.querySelector('.chip[data-filter=\"reverted\"]')"
        ".getAttribute('aria-pressed') === 'true'",
        "the reverted chip is pressed",
    )
    rows = visible_rows(browser)
    assert rows == ["users.email_verified"]
    statuses = browser.js(
        "[...document.querySelectorAll('#results li.row')].filter(r => !r.hidden)"
        ".map(r => r.dataset.status)"
    )
    assert statuses == ["reverted"]
    browser.click('.chip[data-filter="due"]')
    browser.wait_for("location.hash === '#status=due'", "the due filter is in the URL")
    assert visible_rows(browser) == ["orders.legacy_total"]
    browser.click('.chip[data-filter="reverted"]')
    browser.wait_for("location.hash === '#status=reverted'", "back to reverted")
    shot(browser, "filter-reverted")


def test_entity_page_shows_its_timeline(browser: Browser, site: Path) -> None:
    open_index(browser, site)
    browser.type_text("#q", "vault")
    browser.wait_for(
        "document.getElementById('summary').textContent.startsWith('1 of 8')",
        "the search found the re-opened function",
    )
    browser.click("li.row:not([hidden]) a")
    browser.wait_event("Page.loadEventFired")
    browser.wait_for("!!document.querySelector('svg.timeline')", "the timeline is on the page")
    assert browser.js("document.querySelector('h1').textContent") == "src/payments.py::charge"
    box = browser.js(
        "(() => { const r = document.querySelector('svg.timeline')"
        ".getBoundingClientRect(); return [r.width, r.height]; })()"
    )
    assert box[0] > 600 and box[1] > 120
    marks = browser.js(
        "[...document.querySelectorAll('svg.timeline a.mark')]"
        ".map(a => [a.getAttribute('class'), a.getAttribute('href')])"
    )
    assert sorted(c for c, _ in marks) == [
        "mark m-applied",
        "mark m-supersede",
        "mark m-superseded",
    ]
    # the marks sit left to right in time order: the verdict, its re-opening, the change
    xs = browser.js(
        "[...document.querySelectorAll('svg.timeline a.mark')].map(a => "
        "[a.getAttribute('class'), a.getBoundingClientRect().x])"
    )
    order = [c for c, _ in sorted(xs, key=lambda p: p[1])]
    assert order == ["mark m-superseded", "mark m-supersede", "mark m-applied"]
    shot(browser, "entity-timeline", full_page=True)
    # a mark is a link to its event
    href = dict(marks)["mark m-supersede"]
    browser.click(f'svg.timeline a.mark[href="{href}"] .shape')
    browser.wait_for(f"location.hash === {json.dumps(href)}", "the mark led to its event")
    assert browser.js("document.querySelector(':target .etype').textContent") == "supersede"


def test_the_site_opens_with_the_decisions_timeline(browser: Browser, site: Path) -> None:
    """What a reader sees first is what was undone, rejected or re-opened and why; each
    entry leads to its entity, and the entity tree is one click away."""
    open_index(browser, site)
    # after the log's integrity note, before the entity list
    first = browser.js("document.querySelector('main section:not(.integrity)').className")
    assert first == "decisions"
    kinds = browser.js("[...document.querySelectorAll('li.decision')].map(d => d.dataset.kind)")
    assert sorted(set(kinds)) == ["reject", "revert", "supersede"]
    bounced = (
        "[...document.querySelectorAll('li.decision')]"
        ".find(d => d.textContent.includes('mails bounced')).querySelector('.touched a')"
    )
    revert = browser.js(bounced + ".textContent")
    assert revert == "users.email_verified"
    shot(browser, "decisions")
    browser.js(bounced + ".click()")
    browser.wait_event("Page.loadEventFired")
    assert browser.js("document.querySelector('h1').textContent") == "users.email_verified"
    open_index(browser, site)
    browser.click('.lede a[href="tree.html"]')
    browser.wait_event("Page.loadEventFired")
    tree = browser.js("[...document.querySelectorAll('#tree a')].map(a => a.textContent)")
    assert "users.email_verified" in tree and "src/payments.py::Refunds.issue" in tree


def test_hostile_reason_is_shown_as_text_and_never_runs(browser: Browser, site: Path) -> None:
    open_index(browser, site)
    browser.type_text("#q", "pwned")
    browser.wait_for(
        "document.getElementById('summary').textContent.startsWith('1 of 8')",
        "the search found the hostile reason",
    )
    snippet = browser.js("document.querySelector('li.row:not([hidden]) .snippet').textContent")
    assert HOSTILE in snippet
    browser.click("li.row:not([hidden]) a")
    browser.wait_event("Page.loadEventFired")
    browser.wait_for("!!document.querySelector('.why')", "the event list is on the page")
    assert browser.js("document.querySelector('.why').textContent") == HOSTILE
    assert browser.js("document.querySelectorAll('main script, main img').length") == 0
    assert browser.dialogs() == []


def test_a_malformed_search_link_is_read_as_written(browser: Browser, site: Path) -> None:
    # a lone "%" once stopped the script with a URIError (issue 35); a query string makes
    # the second open a real page load, not a jump within the same page
    browser.open((site / "index.html").as_uri() + "?fresh")
    browser.open((site / "index.html").as_uri() + "#q=100%")
    browser.wait_for("document.documentElement.dataset.ready === '1'", "the site script ran")
    assert browser.js("document.getElementById('q').value") == "100%"
    assert browser.js("document.getElementById('summary').textContent").startswith("0 of 8")


BIG = 250  # entities: two and a half list pages
ZEPPELIN = 245  # the one entity whose reason says "zeppelin", on the last page


@pytest.fixture(scope="module")
def big_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """250 columns (written with the store's append_many, exported by the real CLI):
    `tblNNN.col`, listed in that order; 100 to 229 rejected, 245 reverted."""
    root = tmp_path_factory.mktemp("paged") / "big"
    root.mkdir()
    drafts = []
    for i in range(BIG):
        entity = f"tbl{i:03d}.col"
        if 100 <= i < 230:
            drafts.append(
                EventDraft(
                    type="reject",
                    entity=entity,
                    reasoning=f"Index {i} slowed the writes down",
                    alternative="an index on col",
                    author="Ann",
                )
            )
            continue
        drafts.append(
            EventDraft(
                type="add", entity=entity, reasoning=f"Column {i} for the report", author="Ann"
            )
        )
    drafts.append(
        EventDraft(
            type="revert",
            entity=f"tbl{ZEPPELIN}.col",
            reasoning="The zeppelin importer filled the queue",
            author="Bo",
        )
    )
    with Store.open(init_store(root)) as store:
        store.append_many(drafts)
    out = root.parent / "site"
    cairn(root, "export", "html", str(out))
    return out


def paths_listed(browser: Browser) -> list[str]:
    return list(
        browser.js(
            "[...document.querySelectorAll('li.row')].filter(r => !r.hidden)"
            ".map(r => r.dataset.path)"
        )
    )


def search_pieces(browser: Browser) -> list[str]:
    """The pieces of search data this page loaded so far (each a script it added)."""
    return sorted(
        browser.js(
            "[...document.querySelectorAll('script[src^=\"search/\"]')]"
            ".map(s => s.getAttribute('src').slice('search/'.length))"
        )
    )


def test_the_entity_list_is_paged(browser: Browser, big_site: Path) -> None:
    open_index(browser, big_site)
    assert paths_listed(browser) == [f"tbl{i:03d}.col" for i in range(PAGE)]
    assert "page 1 of 3" in browser.js("document.getElementById('entity-pager').textContent")
    # nothing of the search data is loaded before someone searches or filters
    assert search_pieces(browser) == []
    browser.click('#entity-pager a[rel="next"]')
    browser.wait_event("Page.loadEventFired")
    assert browser.js("location.pathname").endswith("/entities-2.html")
    assert paths_listed(browser) == [f"tbl{i:03d}.col" for i in range(PAGE, 2 * PAGE)]
    browser.click('.pager a[rel="next"]')
    browser.wait_event("Page.loadEventFired")
    last = paths_listed(browser)
    assert last == [f"tbl{i:03d}.col" for i in range(2 * PAGE, BIG)]
    assert not browser.js("!!document.querySelector('.pager a[rel=\"next\"]')")
    browser.click(f'li.row[data-path="tbl{ZEPPELIN}.col"] a')
    browser.wait_event("Page.loadEventFired")
    assert browser.js("document.querySelector('h1').textContent") == f"tbl{ZEPPELIN}.col"


def test_search_finds_an_entity_on_a_later_page(browser: Browser, big_site: Path) -> None:
    # a fresh page load, so that the resources listed are this page's own
    browser.open((big_site / "index.html").as_uri() + "?search")
    browser.wait_for("document.documentElement.dataset.ready === '1'", "the site script ran")
    browser.type_text("#q", "zeppelin")
    browser.wait_for(
        "document.getElementById('summary').textContent.startsWith('1 of 250')",
        "the search found the entity on page 3",
    )
    assert visible_rows(browser) == [f"tbl{ZEPPELIN}.col"]
    snippet = browser.js("document.querySelector('li.row:not([hidden]) .snippet').textContent")
    assert snippet.startswith("revert ") and "zeppelin importer" in snippet
    assert browser.js("document.getElementById('entity-pager').hidden") is True
    # only what the query needs: the entity list, the piece of words starting with "z",
    # and the piece holding entity 245's page and texts
    assert search_pieces(browser) == [f"d-{ZEPPELIN // DOC_SHARD}.js", "meta.js", "t-7a.js"]
    # a path is searchable too, wherever its entity is listed
    browser.js("document.getElementById('q').value = ''")
    browser.type_text("#q", "tbl240")
    browser.wait_for(
        "document.getElementById('summary').textContent.includes('\u201ctbl240\u201d')",
        "the search found the entity by its path",
    )
    assert browser.js("document.getElementById('summary').textContent").startswith("1 of 250")
    assert visible_rows(browser) == ["tbl240.col"]
    browser.click("li.row:not([hidden]) a")
    browser.wait_event("Page.loadEventFired")
    assert browser.js("document.querySelector('h1').textContent") == "tbl240.col"


def test_a_filter_covers_every_page_and_shows_more_on_request(
    browser: Browser, big_site: Path
) -> None:
    open_index(browser, big_site)
    browser.click('.chip[data-filter="rejected"]')
    browser.wait_for(
        "document.getElementById('summary').textContent.startsWith('130 of 250 rejected')",
        "the filter ran over every entity",
    )
    assert visible_rows(browser) == [f"tbl{i:03d}.col" for i in range(100, 100 + PAGE)]
    assert browser.js("document.getElementById('more').hidden") is False
    browser.click("#more")
    browser.wait_for("document.getElementById('more').hidden", "the rest is shown")
    assert visible_rows(browser) == [f"tbl{i:03d}.col" for i in range(100, 230)]
    # back to no filter: the page's own rows and the pager again
    browser.click('.chip[data-filter="rejected"]')
    browser.wait_for("location.hash === ''", "the filter is off")
    assert visible_rows(browser) == [f"tbl{i:03d}.col" for i in range(PAGE)]
    assert browser.js("document.getElementById('entity-pager').hidden") is False


AGREEMENT = [
    ("billing.card_token", "Keep the card token, not card numbers, to stay out of PCI scope"),
    ("billing.retry_queue", "Retries of failed card charges go to a slow queue"),
    ("jobs/webhooks.py::deliver", "Webhook retries backed off exponentially; reverted, storms"),
    ("jobs/webhooks.py::OrderLineFilterSet", "Filtering order lines per webhook was too slow"),
    ("users.session_cache", "Session cache reverted: it served stale carts after logout"),
    ("users.email", "Login by e-mail; the card on file is shown after login"),
]
AGREEMENT_QUERIES = [
    "why did we revert the session cache",
    "card retries",
    "what happened to the webhook retry storms",
    "order line filter set",
    "card",
    '"card token" scope',
    "retr*",
]


def test_the_site_ranks_as_cairn_search_does(
    browser: Browser, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # One event an entity: the site's document (an entity) is then `cairn search`'s
    # (an event), and both rank with BM25 over the same stemmed words and weights.
    project = tmp_path_factory.mktemp("agree") / "p"
    project.mkdir()
    cairn(project, "init")
    for entity, reason in AGREEMENT:
        cairn(project, "log", entity, "add", "-r", reason)
    out = project.parent / "site"
    cairn(project, "export", "html", str(out))
    for n, query in enumerate(AGREEMENT_QUERIES):
        found = json.loads(cairn(project, "search", query, "--json").stdout)
        expected = [hit["entity"] for hit in found]
        # a new query string makes each open a page load, not a jump within the page
        browser.open((out / "index.html").as_uri() + f"?{n}")
        browser.open((out / "index.html").as_uri() + "#q=" + quote(query))
        browser.wait_for("document.documentElement.dataset.ready === '1'", "the site script ran")
        assert expected, query
        assert visible_rows(browser) == expected, query


def test_nothing_left_the_file_system_and_nothing_complained(browser: Browser) -> None:
    # runs last in this module: every page the tests above opened is in the record
    urls = browser.requested_urls()
    assert urls and all(u.startswith("file://") for u in urls), urls
    assert browser.console_problems() == []


def test_ci_installs_chromium_and_forbids_skipping_this_test() -> None:
    ci = (REPO / ".ci" / "run").read_text()
    assert "need_apt+=(chromium)" in ci
    install = ci.index("need_apt+=(chromium)")
    # the line that runs the tests sets the variable, whatever else it sets beside it
    test_lines = [line for line in ci.splitlines() if line.rstrip().endswith("make test")]
    assert len(test_lines) == 1, test_lines
    line = test_lines[0]
    assert "CAIRN_REQUIRE_CHROMIUM=1" in line.split("make test")[0].split(), line
    assert install < ci.index(line)
