""" "Did you mean …": entity paths close to one the log does not know.

People guess entity paths (`celery`, `dep/celery`, `gift_wrap`, `route/GET /users/{id}`)
before they know the grammar. Candidates come from the log (every entity with a
decision) and from the code: only files whose text mentions the guessed name are
indexed, so a suggestion costs a substring search plus a few parses, not a full scan.
"""

from __future__ import annotations

import bisect
import difflib
import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

__all__ = ["code_entities", "rank", "same_file", "suggest"]

MAX_SUGGESTIONS = 5
MAX_FILES = 300  # files indexed for code candidates: enough for a guess, bounded on a monorepo
MAX_FILE_BYTES = 1_000_000
_WORD = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]*")
_NOISE = frozenset({"route", "deps", "dep", "env", "get", "post", "put", "patch", "delete"})
_SEGMENT = re.compile(r"::|[./ {}]+")
_CUTOFF = 0.6  # the score a suggestion needs
_SLACK = 1e-9  # bounds are compared with room for floating-point rounding


def _norm(text: str) -> str:
    return text.strip().lower().replace("-", "_")


def _leaf(text: str) -> str:
    parts = [p for p in _SEGMENT.split(_norm(text)) if p]
    return parts[-1] if parts else ""


def _token(query: str) -> str:
    """The word to look for in the code: the longest meaningful word of the guess."""
    words = [w for w in _WORD.findall(query) if w.lower() not in _NOISE and len(w) >= 3]
    return max(words, key=len) if words else ""


def _shared(counts: Counter[str], text: str) -> int:
    """How many characters of the multiset `counts` `text` holds: the most any alignment
    of the two can match (what difflib's `quick_ratio` counts)."""
    return sum(min(n, text.count(ch)) for ch, n in counts.items())


def _score(q: str, q_leaf: str, candidate: str, c: str) -> float:
    """The candidate's score: its similarity to the query, plus 1 for the same last name,
    or plus 0.5 when it contains the query, or else its last name's similarity - 0.1."""
    score = difflib.SequenceMatcher(None, q, c).ratio()
    c_leaf = _leaf(candidate)
    if q_leaf and c_leaf == q_leaf:
        score += 1.0
    elif len(q) >= 3 and q in c:
        score += 0.5
    elif q_leaf and c_leaf:
        score = max(score, difflib.SequenceMatcher(None, q_leaf, c_leaf).ratio() - 0.1)
    return score


class _Bound:
    """Upper bounds on `_score`, from the characters a candidate shares with the query.

    With m characters shared, a ratio is at most 2m/(|q|+|c|), and the last name's at
    most 2m/(|q_leaf|+m) (the candidate's last name holds at most the m the whole
    candidate shares). The same last name and containment both need the query's text
    inside the candidate's, so a candidate without it can score at most its ratios.
    """

    def __init__(self, q: str, q_leaf: str) -> None:
        self.q, self.q_leaf = q, q_leaf
        self.q_counts, self.leaf_counts = Counter(q), Counter(q_leaf)
        # Deleting the query's characters counts, in one C call, at least as many as
        # the two share: the quick bound that sorts; `tight` counts the multiset.
        self._drop_q = str.maketrans(dict.fromkeys(self.q_counts))
        self._drop_leaf = str.maketrans(dict.fromkeys(self.leaf_counts))

    def quick(self, c: str) -> float:
        shared = min(len(c) - len(c.translate(self._drop_q)), len(self.q))
        leaf_shared = min(len(c) - len(c.translate(self._drop_leaf)), len(self.q_leaf))
        return self._combine(c, shared, leaf_shared)

    def tight(self, c: str) -> float:
        return self._combine(c, _shared(self.q_counts, c), _shared(self.leaf_counts, c))

    def _combine(self, c: str, shared: int, leaf_shared: int) -> float:
        ratio = 2.0 * shared / (len(self.q) + len(c))
        if self.q_leaf and self.q_leaf in c:
            return ratio + 1.0
        if len(self.q) >= 3 and self.q in c:
            return ratio + 0.5
        if leaf_shared:
            return max(ratio, 2.0 * leaf_shared / (len(self.q_leaf) + leaf_shared) - 0.1)
        return ratio


def rank(query: str, candidates: Iterable[str], limit: int = MAX_SUGGESTIONS) -> list[str]:
    """Candidates close to `query`, best first: same last name, then containment, then
    overall similarity (difflib's ratio, the measure git's own "did you mean" resembles).

    difflib on every candidate took 4-8 s at 100k logged entities, so candidates are
    scored in order of an upper bound on their score (`_Bound`) and the scoring stops
    when no candidate left can reach the `limit` best found so far.
    """
    if limit <= 0:
        return []
    q, q_leaf = _norm(query), _leaf(query)
    bound = _Bound(q, q_leaf)
    floor = _CUTOFF - _SLACK
    queue: list[tuple[float, str, str]] = []
    for candidate in set(candidates):
        c = _norm(candidate)
        if c != q and (u := bound.quick(c)) >= floor:
            queue.append((u, candidate, c))
    queue.sort(key=lambda item: -item[0])
    scored: list[tuple[float, str]] = []  # the best `limit`, best first (ties: by name)
    for u, candidate, c in queue:
        if len(scored) >= limit:
            # A tie with the last one could still displace it (ties go by name).
            floor = max(floor, scored[-1][0] - _SLACK)
            if u < floor:
                break
        if bound.tight(c) < floor:
            continue
        score = _score(q, q_leaf, candidate, c)
        if score >= _CUTOFF:
            bisect.insort(scored, (score, candidate), key=lambda item: (-item[0], item[1]))
            del scored[limit:]
    return [candidate for _, candidate in scored]


def code_entities(query: str, root: Path, queries_dir: Path | None = None) -> set[str]:
    """Entities the indexer finds in files under `root` that mention the guessed name,
    and (a guess that names a file, `s3.py`) in the files of that name, with the files
    themselves: a module is named by its path more often than in its own text."""
    token = _token(query)
    guess = _file_guess(query)
    if not token and guess is None:
        return set()
    from cairn.indexer import iter_files, scan_paths

    needle = token.lower().encode() if token else None
    files: list[Path] = []
    named: set[str] = set()
    for file in iter_files([root]):
        try:
            if file.stat().st_size > MAX_FILE_BYTES:
                continue
            if guess is not None and _names(file.as_posix(), guess):
                files.append(file)
                named.add(file.resolve().relative_to(root.resolve()).as_posix())
            elif needle is not None and needle in file.read_bytes().lower():
                files.append(file)
        except (OSError, ValueError):
            continue
        if len(files) >= MAX_FILES:
            break
    found: set[str] = set(named)
    for result in scan_paths(files, root, user_queries_dir=queries_dir):
        found.update(s.entity for s in result.symbols)
    return found


def _file_guess(query: str) -> str | None:
    """The file a guess names (`s3.py`, `./storage/s3.py`), else None."""
    guess = query.strip().removeprefix("./")
    if "::" in guess or "." not in guess.rsplit("/", 1)[-1] or guess.startswith(_RESERVED):
        return None
    return guess


def _names(path: str, guess: str) -> bool:
    return path == guess or path.endswith("/" + guess)


def suggest(query: str, logged: Iterable[str], root: Path | None) -> list[str]:
    """Suggestions for an entity path nobody logged: from the log first, then the code."""
    candidates = set(logged)
    if root is not None:
        queries = root / ".cairn" / "queries"
        candidates |= code_entities(query, root, queries if queries.is_dir() else None)
    return same_file(query, candidates) or rank(query, candidates)


def same_file(query: str, candidates: Iterable[str], limit: int = MAX_SUGGESTIONS) -> list[str]:
    """For a guess that names a file (`s3.py`, `storage/s3.py`): the files it names and
    their entities, a module before its tests (`cairn status s3.py` suggested only
    `tests/test_s3.py::…`, whose text mentions `s3`). Empty when it names no file."""
    guess = _file_guess(query)
    if guess is None:
        return []
    own: set[str] = set()
    files: set[str] = set()
    for candidate in candidates:
        file = candidate.split("::", 1)[0]
        if _names(file, guess):
            own.add(candidate)
            files.add(file)

    def key(path: str) -> tuple[bool, str]:
        return (_is_test(path), path)

    ordered = sorted(files, key=key) + sorted(own - files, key=key)
    return ordered[:limit]


_RESERVED = ("route/", "deps/", "env/")


def _is_test(path: str) -> bool:
    """A path in a test folder or a test file (`tests/`, `test_x.py`, `x_test.go`, `x.spec.ts`)."""
    parts = path.split("::", 1)[0].lower().split("/")
    name = parts[-1]
    return (
        any(p in ("test", "tests", "spec", "__tests__") for p in parts[:-1])
        or name.startswith("test_")
        or name.rsplit(".", 1)[0].endswith(("_test", ".test", ".spec"))
    )
