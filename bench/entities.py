#!/usr/bin/env python3
"""Entity precision and recall per framework on real files (tests/corpus/).

Each corpus file sits under `tests/corpus/<framework>/` at the path it had in its
repository (the app label of a Django model, a migration's folder, a Rails migration's
`db/migrate/` all come from the path), with a sidecar `<file>.expected` listing the
table and column entities a reader finds in it, one per line:

    LINE ROLE KIND ENTITY        e.g.  12 introduce column blog_entry.headline

(LINE is 1-based, the line of the entity's name; ROLE is introduce, reference or
remove.) Files with no framework entities (forms, serializers, admin classes) have an
empty list: anything the indexer finds there is a false positive. The indexer's table
and column symbols are compared with the list as (line, role, kind, entity) tuples;
generic symbols (functions, classes, constants) are not measured here.

Usage:
  python bench/entities.py                 # the table per framework
  python bench/entities.py --json          # the same for machines
  python bench/entities.py --misses        # every false positive and false negative
  python bench/entities.py --draft FILE    # the indexer's answer for FILE in the
                                           # sidecar format: a draft to check by hand,
                                           # never to copy unread
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "corpus"
KINDS = frozenset({"table", "column"})
Row = tuple[int, str, str, str]  # (line, role, kind, entity)


@dataclass
class Score:
    """Counts for one framework, and what was missed or wrongly found."""

    files: int = 0
    true_positives: int = 0
    false_positives: list[tuple[str, Row]] = field(default_factory=list)
    false_negatives: list[tuple[str, Row]] = field(default_factory=list)

    @property
    def precision(self) -> float:
        found = self.true_positives + len(self.false_positives)
        return self.true_positives / found if found else 1.0

    @property
    def recall(self) -> float:
        expected = self.true_positives + len(self.false_negatives)
        return self.true_positives / expected if expected else 1.0


def corpus_files(corpus: Path = CORPUS) -> list[tuple[str, str, Path]]:
    """(framework, repository-relative path, file) for every corpus file with a sidecar."""
    out = []
    for expected in sorted(corpus.rglob("*.expected")):
        source = expected.with_suffix("")
        framework_dir = expected.relative_to(corpus).parts[0]
        rel = source.relative_to(corpus / framework_dir).as_posix()
        out.append((framework_dir, rel, source))
    return out


def read_expected(path: Path) -> set[Row]:
    """The sidecar's rows (comments and blank lines skipped)."""
    rows: set[Row] = set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        parts = text.split(maxsplit=3)
        if len(parts) != 4 or not parts[0].isdigit():
            raise ValueError(f"{path}:{number}: expected LINE ROLE KIND ENTITY, got {line!r}")
        rows.add((int(parts[0]), parts[1], parts[2], parts[3]))
    return rows


def found_rows(rel: str, data: bytes, root: Path | None = None) -> set[Row]:
    """The indexer's table and column symbols for a file at repository path `rel`
    (`root`: the folder `rel` is under, whose Django apps state their tables)."""
    from cairn.indexer import app_model_tables, index_text

    tables = app_model_tables(root, rel) if root is not None else None
    return {
        (s.name_range.start_line + 1, s.role.value, s.kind, s.entity)
        for s in index_text(data, rel, model_tables=tables)
        if s.kind in KINDS
    }


def measure(corpus: Path = CORPUS) -> dict[str, Score]:
    """Precision and recall per framework over the corpus."""
    scores: dict[str, Score] = {}
    for framework, rel, source in corpus_files(corpus):
        score = scores.setdefault(framework, Score())
        score.files += 1
        expected = read_expected(source.with_name(source.name + ".expected"))
        found = found_rows(rel, source.read_bytes(), corpus / framework)
        score.true_positives += len(found & expected)
        score.false_positives += [(rel, r) for r in sorted(found - expected)]
        score.false_negatives += [(rel, r) for r in sorted(expected - found)]
    return scores


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--misses", action="store_true", help="list every miss")
    parser.add_argument("--draft", type=Path, help="print the indexer's rows for a corpus file")
    args = parser.parse_args(argv)
    if args.draft is not None:
        source = args.draft.resolve()
        framework_dir = source.relative_to(CORPUS).parts[0]
        rel = source.relative_to(CORPUS / framework_dir).as_posix()
        for row in sorted(found_rows(rel, source.read_bytes(), CORPUS / framework_dir)):
            print(" ".join(map(str, row)))
        return 0
    scores = measure()
    if args.json:
        print(
            json.dumps(
                {
                    name: {
                        "files": s.files,
                        "true_positives": s.true_positives,
                        "false_positives": len(s.false_positives),
                        "false_negatives": len(s.false_negatives),
                        "precision": round(s.precision, 4),
                        "recall": round(s.recall, 4),
                    }
                    for name, s in sorted(scores.items())
                },
                indent=2,
            )
        )
        return 0
    head = ("framework", "files", "tp", "fp", "fn", "precision", "recall")
    print("{:<12} {:>5} {:>5} {:>4} {:>4} {:>9} {:>7}".format(*head))
    for name, s in sorted(scores.items()):
        print(
            f"{name:<12} {s.files:>5} {s.true_positives:>5} {len(s.false_positives):>4} "
            f"{len(s.false_negatives):>4} {s.precision:>9.1%} {s.recall:>7.1%}"
        )
        if args.misses:
            for rel, row in s.false_positives:
                print(f"    + {rel}:{row[0]} {row[1]} {row[2]} {row[3]}  (found, not expected)")
            for rel, row in s.false_negatives:
                print(f"    - {rel}:{row[0]} {row[1]} {row[2]} {row[3]}  (expected, not found)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
