"""Building symbols pauses the cyclic collector and always gives it back as it was."""

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


@pytest.mark.usefixtures("collector_state")
def test_a_failing_index_gives_the_collector_back(monkeypatch: pytest.MonkeyPatch) -> None:
    gc.enable()
    doc = Document("c.py", "def c():\n    pass\n")

    def broken() -> list[object]:
        assert not gc.isenabled()  # paused while symbols are built
        raise RuntimeError("resolver bug")

    monkeypatch.setattr(doc, "_index", broken)
    with pytest.raises(RuntimeError):
        doc.symbols  # noqa: B018 - the property is what is tested
    assert gc.isenabled()
