"""Building symbols leaves the cyclic collector as it found it (the indexer no longer
pauses it: that bought ~5% of an index, under the 20% a speed trick must pay)."""

from __future__ import annotations

import gc

import pytest

from cairn.indexer import Document, index_text


@pytest.mark.usefixtures("collector_state")
@pytest.mark.parametrize("enabled", [True, False])
def test_symbols_leave_the_collector_as_they_found_it(enabled: bool) -> None:
    (gc.enable if enabled else gc.disable)()
    assert [s.entity for s in index_text("def f():\n    pass\n", "a.py")] == ["a.py::f"]
    assert gc.isenabled() is enabled
    doc = Document("b.py", "class B:\n    pass\n")
    assert [s.entity for s in doc.symbols] == ["b.py::B"]
    assert gc.isenabled() is enabled
