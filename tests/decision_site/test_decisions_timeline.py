"""The site opens with decisions (issue 29 item 7): one timeline entry per revert, reject
or supersede with the entities it touched folded in, newest first, a page at a time.

In the browser: test_site_in_chromium.py."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

from cairn.site import iter_site
from cairn.site.timeline import NAMED, PAGE
from cairn.store import EventDraft, Store, init_store
from cairn.store.verify import verify

SWEEP = "a" * 40  # one revert commit that took out seven functions


def test_one_entry_per_decision_folded_and_paged(tmp_path: Path) -> None:
    root = tmp_path / "app"
    root.mkdir()
    init_store(root)
    with Store.open(root / ".cairn") as store:
        for n in range(7):
            store.append(
                EventDraft(
                    type="revert",
                    entity=f"src/sweep.py::f{n}",
                    reasoning="The sweep broke imports",
                    commit=SWEEP,
                    occurred_at="2024-06-01T10:00:00Z",
                )
            )
        for n in range(PAGE + 5):  # one decision each, older than the sweep
            store.append(
                EventDraft(
                    type="reject",
                    entity=f"t{n}.c",
                    reasoning=f"Reason {n}",
                    alternative=f"approach {n}",
                    occurred_at=f"2023-01-01T10:{n // 60:02}:{n % 60:02}Z",
                )
            )
        store.append(EventDraft(type="modify", entity="t0.c", reasoning="not a decision"))
        site = dict(iter_site(store, verify(root / ".cairn"), "app", today=date(2025, 1, 1)))

    index = site["index.html"]
    entries = re.findall(r'<li class="decision".*?</li>', index, re.S)
    assert len(entries) == PAGE
    sweep = entries[0]  # the newest first, the seven functions folded into it
    assert "The sweep broke imports" in sweep and sweep.count("src/sweep.py::f") == 7
    assert "<summary>2 more</summary>" in sweep
    assert "rejected approach: approach 104" in entries[1]
    assert "page 1 of 2" in index and 'href="decisions-2.html"' in index
    older = re.findall(r'<li class="decision".*?</li>', site["decisions-2.html"], re.S)
    assert len(older) == 6 and "Reason 0<" in older[-1]
    # the timeline comes first; the entity list follows it, the tree is a click away
    assert index.index('class="decisions"') < index.index('id="results"')
    assert 'href="tree.html"' in index and 'id="tree"' in site["tree.html"]


def test_a_sweeping_revert_names_a_few_and_links_a_page_of_all(tmp_path: Path) -> None:
    """A revert of a commit that touched thousands of files must not put thousands of
    links on the front page: its entry names `NAMED`, and its own page lists them all."""
    root = tmp_path / "app"
    root.mkdir()
    init_store(root)
    touched = NAMED + 25
    with Store.open(root / ".cairn") as store:
        store.append_many(
            [
                EventDraft(
                    type="revert",
                    entity=f"src/m{n:03d}.py",
                    reasoning="Reformatting every file broke blame",
                    commit=SWEEP,
                    occurred_at="2024-06-01T10:00:00Z",
                )
                for n in range(touched)
            ]
        )
        site = dict(iter_site(store, verify(root / ".cairn"), "app", today=date(2025, 1, 1)))
    (entry,) = re.findall(r'<li class="decision".*?</li>', site["index.html"], re.S)
    assert entry.count("<code>src/m") == NAMED
    assert f"{touched - 5} more" in entry
    (link,) = re.findall(r'<a class="all" href="(touched/[0-9a-f]{16}\.html)">', entry)
    assert f"all {touched} entities" in entry
    page = site[link]
    listed = re.findall(r'<a href="\.\./(e/[^"]+)"><code>(src/m\d+\.py)</code>', page)
    assert [path for _, path in listed] == [f"src/m{n:03d}.py" for n in range(touched)]
    assert all(page_file in site for page_file, _ in listed)
    assert "Reformatting every file broke blame" in page
