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


def test_draw_from_keeps_the_labelled_draw_and_judges_it_by_the_new_log(tmp_path: Path) -> None:
    precision = _bench()
    before = tmp_path / "before.jsonl"
    _log(before, 80)
    picked, shas = precision.draw(precision.verdicts(before))
    book = {
        "o/r": {
            "events": {precision.key(e): {"label": "trivial"} for e in picked},
            "commits": {s: {"label": "trivial"} for s in shas},
        }
    }
    # The new build records fewer events (a tree merged) and makes the rest quiet: a
    # plain draw of it is other items; drawn from the earlier log, the same 50.
    after = tmp_path / "after.jsonl"
    kept = [json.loads(x) for x in before.read_text().splitlines()[:-1]]
    kept = [e for e in kept if e["entity"] not in ("src/m3.py", "src/m5.py")]
    for e in kept:
        e.setdefault("metadata", {})["significance"] = "trivial"
    after.write_text("".join(json.dumps(e) + "\n" for e in kept))
    plain = precision.report("o/r", after, book)
    assert plain["unlabelled"]  # another draw
    row = precision.report("o/r", after, book, drawn_from=before)
    assert row["unlabelled"] == []
    assert row["events_handled"].startswith("100% (50/50)")  # gone or quiet: both quiet
    assert row["commits_handled"].startswith("100% (7/7)")
    assert row["revert_events"] == 78  # the figures of the log judged
