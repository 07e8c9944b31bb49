"""`bench/recall.py --precision`: fixed-seed draws of imported verdicts, label shares,
and the draws nobody has labelled listed (bench/precision.py)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _bench():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(
        "bench_precision", ROOT / "bench" / "precision.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _log(path: Path, n: int) -> None:
    lines = [
        {
            "type": "revert",
            "agent": "cairn-import/git",
            "commit": f"{i % 7:040x}",
            "entity": f"src/m{i}.py",
            "metadata": {"found_by": "marker", "revert_subject": f"Revert {i}"},
        }
        for i in range(n)
    ]
    lines.append({"type": "add", "agent": "cairn-import/git", "commit": "f" * 40, "entity": "x"})
    path.write_text("".join(json.dumps(e) + "\n" for e in lines) + "{not json\n")


def test_draws_are_fixed_labels_are_shared_out_and_unlabelled_draws_listed(
    tmp_path: Path,
) -> None:
    precision = _bench()
    log = tmp_path / "decisions.jsonl"
    _log(log, 80)
    events = precision.verdicts(log)
    assert len(events) == 80  # only imported reverts; a torn line is skipped
    picked, shas = precision.draw(events)
    flipped = tmp_path / "flipped.jsonl"  # the same log, lines in another order
    flipped.write_text("".join(reversed(log.read_text().splitlines(True))))
    again, shas_again = precision.draw(precision.verdicts(flipped))
    assert len(picked) == 50 and len(shas) == 7
    assert [precision.key(e) for e in picked] == [precision.key(e) for e in again]
    assert shas == shas_again  # the same draws whatever order the log holds them in
    book = {
        "o/r": {
            "events": {
                precision.key(e): {"label": "right" if i % 4 else "wrong-entity"}
                for i, e in enumerate(picked[:40])
            },
            "commits": {s: {"label": "trivial"} for s in shas[:5]},
        }
    }
    row = precision.report("o/r", log, book)
    assert row["events"] == "right 75%, trivial 0%, wrong-entity 25%, not-a-revert 0% (of 40)"
    assert row["commits"].startswith("right 0%, trivial 100%")
    assert len(row["unlabelled"]) == 10 + 2
    assert row["unlabelled"][0].startswith(f"event {precision.key(picked[40])}")
