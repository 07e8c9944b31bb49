"""Overloads through the real `cairn serve`: a decision on one overload
(`Assert.geq(double)`) warns and shows at that declaration only, never at its sibling
`geq(int)`; a decision on the bare name (`Range.clip`) is about every overload and
shows at each (docs/entity-paths.md#overloads)."""

from __future__ import annotations

from pathlib import Path

from lsp_helpers import cairn_diagnostics, hover_at, initialize, open_doc, wait_for
from pytest_lsp import LanguageClient

from cairn.store import EventDraft, Store, init_store

ASSERT = """\
package a;
class Assert {
    static void geq(double actual, double floor) { check(actual >= floor); }
    static void geq(int actual, int floor) { check(actual >= floor); }
    static void once(String s) { }
}
"""
RANGE = """\
package a;
class Range {
    int clip(int x) { return Math.max(lo, x); }
    long clip(long x) { return Math.max(lo, x); }
}
"""


def _verdicts(client: LanguageClient, uri: str) -> dict[int, str]:
    return {
        d.range.start.line: d.data["entity"]
        for d in cairn_diagnostics(client, uri)
        if d.data["kind"] == "verdict"
    }


async def test_a_decision_on_one_overload_is_not_one_on_its_sibling(
    client: LanguageClient, tmp_path: Path
) -> None:
    root = tmp_path / "app"
    (root / "src/a").mkdir(parents=True)
    (root / "src/a/Assert.java").write_text(ASSERT)
    (root / "src/a/Range.java").write_text(RANGE)
    init_store(root)
    with Store.open(root / ".cairn") as store:
        for entity, why in (
            # written as a person would: names, blanks and all; one grammar canonicalises it
            ("src/a/Assert.java::Assert.geq(double actual, double floor)", "NaN passed"),
            ("src/a/Range.java::Range.clip", "clipping hid overflow"),
        ):
            store.append(EventDraft(type="revert", entity=entity, reasoning=why))

    await initialize(client, root)
    assert_uri = open_doc(client, root / "src/a/Assert.java", "java")
    range_uri = open_doc(client, root / "src/a/Range.java", "java")
    await wait_for(
        lambda: bool(_verdicts(client, assert_uri)) and len(_verdicts(client, range_uri)) == 2,
        client,
    )

    # One overload decided on: its declaration warns, its sibling's does not.
    assert _verdicts(client, assert_uri) == {2: "src/a/Assert.java::Assert.geq(double,double)"}
    card = await hover_at(client, assert_uri, 2, 17)
    assert card is not None and "Assert.geq(double,double)`** · reverted" in card
    assert "NaN passed" in card
    sibling = await hover_at(client, assert_uri, 3, 17)
    assert sibling is None or "NaN passed" not in sibling

    # The bare name decided on: every overload warns.
    assert _verdicts(client, range_uri) == {
        2: "src/a/Range.java::Range.clip",
        3: "src/a/Range.java::Range.clip",
    }
    for line in (2, 3):
        card = await hover_at(client, range_uri, line, 9)
        assert card is not None and "clipping hid overflow" in card
