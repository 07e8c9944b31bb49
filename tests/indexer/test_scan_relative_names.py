"""Entity file paths from a scan: relative to the root, links resolved to where they
point (a fast path skips resolving plain files; it must answer the same)."""

from __future__ import annotations

from pathlib import Path

from cairn.indexer import scan_paths
from cairn.indexer.scan import relative_name


def test_plain_linked_and_dotted_paths(tmp_path: Path) -> None:
    root = (tmp_path / "app").resolve()
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_text("def f():\n    pass\n")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "b.py").write_text("def g():\n    pass\n")
    (root / "src" / "link.py").symlink_to(outside / "b.py")
    (root / "src" / "inner.py").symlink_to(root / "src" / "a.py")

    assert relative_name(root / "src" / "a.py", root) == "src/a.py"
    assert relative_name(root / "src" / ".." / "src" / "a.py", root) == "src/a.py"
    assert relative_name(root / "src" / "inner.py", root) == "src/a.py"
    linked = relative_name(root / "src" / "link.py", root)
    assert linked == (outside / "b.py").resolve().as_posix().lstrip("/")
    assert relative_name(outside / "b.py", root) == linked

    found = {fs.file for fs in scan_paths([root], root)}
    assert "src/a.py" in found and linked in found
