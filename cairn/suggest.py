""" "Did you mean …": entity paths close to one the log does not know.

People guess entity paths (`celery`, `dep/celery`, `gift_wrap`, `route/GET /users/{id}`)
before they know the grammar. Candidates come from the log (every entity with a
decision) and from the code: only files whose text mentions the guessed name are
indexed, so a suggestion costs a substring search plus a few parses, not a full scan.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from pathlib import Path

__all__ = ["code_entities", "rank", "suggest"]

MAX_SUGGESTIONS = 5
MAX_FILES = 300  # files indexed for code candidates: enough for a guess, bounded on a monorepo
MAX_FILE_BYTES = 1_000_000
_WORD = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]*")
_NOISE = frozenset({"route", "deps", "dep", "env", "get", "post", "put", "patch", "delete"})
_SEGMENT = re.compile(r"::|[./ {}]+")


def _norm(text: str) -> str:
    return text.strip().lower().replace("-", "_")


def _leaf(text: str) -> str:
    parts = [p for p in _SEGMENT.split(_norm(text)) if p]
    return parts[-1] if parts else ""


def _token(query: str) -> str:
    """The word to look for in the code: the longest meaningful word of the guess."""
    words = [w for w in _WORD.findall(query) if w.lower() not in _NOISE and len(w) >= 3]
    return max(words, key=len) if words else ""


def rank(query: str, candidates: Iterable[str], limit: int = MAX_SUGGESTIONS) -> list[str]:
    """Candidates close to `query`, best first: same last name, then containment, then
    overall similarity (difflib's ratio, the measure git's own "did you mean" resembles)."""
    q, q_leaf = _norm(query), _leaf(query)
    scored: list[tuple[float, str]] = []
    for candidate in set(candidates):
        c = _norm(candidate)
        if c == q:
            continue
        score = difflib.SequenceMatcher(None, q, c).ratio()
        c_leaf = _leaf(candidate)
        if q_leaf and c_leaf == q_leaf:
            score += 1.0
        elif len(q) >= 3 and q in c:
            score += 0.5
        elif q_leaf and c_leaf:
            score = max(score, difflib.SequenceMatcher(None, q_leaf, c_leaf).ratio() - 0.1)
        if score >= 0.6:
            scored.append((score, candidate))
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [candidate for _, candidate in scored[:limit]]


def code_entities(query: str, root: Path, queries_dir: Path | None = None) -> set[str]:
    """Entities the indexer finds in files under `root` that mention the guessed name."""
    token = _token(query)
    if not token:
        return set()
    from cairn.indexer import iter_files, scan_paths

    needle = token.lower().encode()
    files: list[Path] = []
    for file in iter_files([root]):
        try:
            if file.stat().st_size > MAX_FILE_BYTES:
                continue
            if needle in file.read_bytes().lower():
                files.append(file)
        except OSError:
            continue
        if len(files) >= MAX_FILES:
            break
    found: set[str] = set()
    for result in scan_paths(files, root, user_queries_dir=queries_dir):
        found.update(s.entity for s in result.symbols)
    return found


def suggest(query: str, logged: Iterable[str], root: Path | None) -> list[str]:
    """Suggestions for an entity path nobody logged: from the log first, then the code."""
    candidates = set(logged)
    if root is not None:
        queries = root / ".cairn" / "queries"
        candidates |= code_entities(query, root, queries if queries.is_dir() else None)
    return rank(query, candidates)
