"""`bench/import_time.py`: each run starts from the seeded decisions alone, and two
runs' logs compare equal when only ids and record times differ."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _bench():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(
        "bench_import_time", ROOT / "bench" / "import_time.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _write(path: Path, events: list[dict[str, object]]) -> None:
    path.write_text("".join(json.dumps(e, sort_keys=True) + "\n" for e in events))


def _run(salt: str) -> list[dict[str, object]]:
    """A seeded decision, then an import's revert and its superseding verdict."""
    seed = {"id": f"a{salt}", "author": "bench", "type": "reject", "recorded_at": salt}
    revert = {"id": f"b{salt}", "author": "x", "parents": [f"a{salt}"], "recorded_at": salt}
    later = {"id": f"c{salt}", "author": "x", "supersedes": f"b{salt}", "recorded_at": salt}
    return [seed, revert, later]


def test_a_copy_keeps_the_seeded_decisions_and_drops_the_index(tmp_path: Path) -> None:
    bench = _bench()
    project = tmp_path / "proj"
    (project / ".cairn").mkdir(parents=True)
    _write(project / ".cairn" / "decisions.jsonl", _run("1"))
    (project / ".cairn" / "index.db").write_bytes(b"index")
    (project / "src.java").write_text("class A {}\n")
    copy = bench.fresh_copy(project, tmp_path / "scratch")
    log = (copy / ".cairn" / "decisions.jsonl").read_text().splitlines()
    assert [json.loads(line)["author"] for line in log] == ["bench"]
    assert not (copy / ".cairn" / "index.db").exists()
    assert (copy / "src.java").read_text() == "class A {}\n"
    assert (project / ".cairn" / "index.db").exists()  # the prepared project is untouched


def test_logs_of_two_runs_compare_equal_ids_aside(tmp_path: Path) -> None:
    bench = _bench()
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    _write(one, _run("1"))
    _write(two, _run("2"))
    assert bench.comparable(one) == bench.comparable(two)
    moved = _run("2")
    moved[2]["supersedes"] = "a2"  # another event superseded: not the same log
    _write(two, moved)
    assert bench.comparable(one) != bench.comparable(two)


def test_a_build_that_is_no_program_is_exit_2(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "import_time.py"), "--work", str(tmp_path),
         "--build", f"new={tmp_path / 'missing'}"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "--build" in proc.stderr
