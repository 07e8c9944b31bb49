"""`cairn export markdown|jsonl`: deterministic, reviewable, canonical."""

from __future__ import annotations

import json
from pathlib import Path

from real_cli import cairn

from cairn.store import Store, canonical_json
from importers.fixtures import ADRS, FLYWAY, write


def populate(project: Path) -> None:
    (project / "src").mkdir()
    (project / "src" / "payments.py").write_text("def charge():\n    pass\n")
    write(project / "docs" / "adr", ADRS)
    write(project / "db", FLYWAY)
    assert cairn(project, "import", "adr", "docs/adr").returncode == 0
    assert cairn(project, "import", "sql", "db").returncode == 0


def test_markdown_digest_groups_by_entity_and_is_stable(project: Path) -> None:
    populate(project)
    first = cairn(project, "export", "markdown")
    assert first.returncode == 0, first.stderr
    text = first.stdout
    entities = [line[4:-1] for line in text.splitlines() if line.startswith("## ")]
    assert entities == sorted(entities)
    assert "payments" in entities and "deps/stripe" in entities
    section = text.split("## `src/payments.py::charge`")[1].split("\n## ")[0]
    assert "Status: **reopened** · 3 decisions" in section
    assert section.index("**reject** 2023-01-20") < section.index("**supersede** 2024-03-01")
    assert "Rejected approach: Store encrypted card numbers" in section
    assert "[docs/adr/0003-store-card-numbers.md](docs/adr/0003-store-card-numbers.md)" in section
    assert "2026-" not in text.split("\n", 3)[2]  # the summary line carries no export time
    out = project / "DECISIONS.md"
    assert cairn(project, "export", "markdown", "-o", str(out)).returncode == 0
    assert out.read_text() == text


def test_markdown_does_not_depend_on_line_order(project: Path) -> None:
    populate(project)
    before = cairn(project, "export", "markdown").stdout
    log = project / ".cairn" / "decisions.jsonl"
    lines = log.read_text().splitlines(keepends=True)
    # what a union merge of two branches can do: same events, different order
    shuffled = lines[1::2] + lines[0::2]
    log.write_text("".join(shuffled))
    (project / ".cairn" / "index.db").unlink()
    assert cairn(project, "export", "markdown").stdout == before


def test_jsonl_is_canonical_parents_first_and_round_trips(project: Path) -> None:
    populate(project)
    log = project / ".cairn" / "decisions.jsonl"
    original = [json.loads(line) for line in log.read_text().splitlines()]
    log.write_text(log.read_text() + log.read_text().splitlines(keepends=True)[0] + "{oops\n")
    proc = cairn(project, "export", "jsonl")
    assert proc.returncode == 0
    assert "left out 1 unreadable line" in proc.stderr
    exported = proc.stdout.splitlines()
    assert len(exported) == len(original)  # the duplicate line is folded away
    seen: set[str] = set()
    for line in exported:
        event = json.loads(line)
        assert line == canonical_json(event)
        assert all(p in seen for p in event.get("parents", []))
        seen.add(event["id"])
    assert seen == {e["id"] for e in original}
    # the backup is a working log: a new project built from it verifies and reads the same
    copy = project.parent / "restored"
    copy.mkdir()
    assert cairn(copy, "init").returncode == 0
    (copy / ".cairn" / "decisions.jsonl").write_text(proc.stdout)
    assert cairn(copy, "verify").returncode == 0
    with Store.open(copy / ".cairn") as store:
        assert store.status("src/payments.py::charge").status.value == "reopened"


def test_export_outside_a_project_is_a_one_line_error(tmp_path: Path) -> None:
    proc = cairn(tmp_path, "export", "markdown")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "cairn init" in proc.stderr


def test_export_to_a_missing_folder_fails_cleanly(project: Path) -> None:
    target = project / "no" / "such" / "DECISIONS.md"
    proc = cairn(project, "export", "markdown", "-o", str(target))
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"cairn: error: cannot write {target}: No such file or directory"
    assert not target.parent.exists()


def test_export_never_writes_over_cairns_own_files(project: Path) -> None:
    populate(project)
    log = project / ".cairn" / "decisions.jsonl"
    with log.open("a") as handle:
        handle.write("{not json\n")  # a line export leaves out: overwriting would lose it
    before = log.read_bytes()
    for fmt, target in (("jsonl", ".cairn/decisions.jsonl"), ("markdown", ".cairn/digest.md")):
        proc = cairn(project, "export", fmt, "-o", target)
        assert proc.returncode == 2
        assert proc.stderr.strip() == (
            f"cairn: error: {target} is inside {project / '.cairn'}; "
            "write the export somewhere else"
        )
    assert log.read_bytes() == before
    assert not (project / ".cairn" / "digest.md").exists()
