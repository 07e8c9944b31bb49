"""What full-text search looks for, apart from SQL: a query's terms, the words an
event is indexed under, and the one rule that ranks them (docs/search.md).

A question in a person's words ("why did we revert the session cache?") is read as its
meaningful words: stop words and the question's own scaffolding ("why", "did",
"happened", "tried", "before") are dropped, and the rest are looked for with OR
semantics, ranked by BM25 (FTS5's `bm25`) over four fields with weights
(`FIELD_WEIGHTS`): the event's why, its alternative, the subjects of the commits an
import names (the revert's and the reverted change's) and its entity's path split into
words (`card_token` -> "card token", `OrderLineFilterSet` -> "order line filter set").
Stemming is FTS5's porter tokenizer, so "retries" finds "retry".

Two forms are kept from the keyword search: a quoted phrase, and a word that FTS5
splits into several tokens (`card_token`; `users.email` is two words), must be found
with its tokens next to each other (an FTS5 phrase); `word*` is a prefix.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from functools import lru_cache

import msgspec

__all__ = [
    "FIELDS",
    "FIELD_WEIGHTS",
    "STOP_WORDS",
    "SearchTerm",
    "line_fields",
    "parse_query",
    "path_words",
    "search_fields",
]

# The indexed fields, in the FTS5 table's column order, and their BM25 weights: a
# subject is a commit's one-line summary of the change, so its words count double; a
# path word names what was changed. Tuned on bench/search.py (docs/search.md).
FIELDS = ("why", "alt", "subjects", "path")
FIELD_WEIGHTS = (1.0, 1.0, 2.0, 1.5)

# Dropped from a query unless nothing else is left: English function words and the
# words a question is built of, which say nothing about what it asks for. Kept short on
# purpose: a word a decision could be about ("cache", "order", "change") is never here.
STOP_WORDS = frozenset(
    [
        "a",
        "about",
        "after",
        "again",
        "all",
        "also",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "been",
        "before",
        "being",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "done",
        "during",
        "each",
        "ever",
        "for",
        "from",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "him",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "just",
        "me",
        "my",
        "no",
        "nor",
        "not",
        "of",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "happen",
        "happened",
        "happens",
        "tried",
        "try",
        "trying",
        "attempt",
        "attempted",
        "earlier",
        "previously",
        "anything",
        "something",
        "someone",
        "thing",
        "things",
        "us",
        "let",
        "lets",
    ]
)

_QUOTED = re.compile(r'"([^"]*)"')
_WORD = re.compile(r"[\w]+\*?", re.UNICODE)
# A lower-case letter or digit followed by an upper-case one, or an acronym's last
# capital followed by a capitalised word (`HTTPServer` -> HTTP Server).
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


class SearchTerm(msgspec.Struct, frozen=True):
    """One word or quoted phrase of a query: its tokens (as FTS5's unicode61 splits
    them) and whether the last one is a prefix (`word*`). A term of several tokens is
    a phrase, which an event must hold to be found."""

    tokens: tuple[str, ...]
    prefix: bool

    @property
    def is_phrase(self) -> bool:
        return len(self.tokens) > 1

    def match(self) -> str:
        """The FTS5 form: the tokens as a phrase, the last a prefix for `word*`."""
        return f'"{" ".join(self.tokens)}"' + ("*" if self.prefix else "")


def _is_token_char(ch: str) -> bool:
    # unicode61's token characters: letters, numbers, private use; combining marks too,
    # which it folds away with the diacritics (remove_diacritics=1, its default).
    if ch.isascii():
        return ch.isalnum()
    category = unicodedata.category(ch)
    return category[0] in "LN" or category in ("Co", "Mn")


def _split(text: str) -> list[str]:
    tokens: list[str] = []
    start = -1
    for i, ch in enumerate(text):
        if _is_token_char(ch):
            if start < 0:
                start = i
        elif start >= 0:
            tokens.append(text[start:i])
            start = -1
    if start >= 0:
        tokens.append(text[start:])
    return tokens


def _fold(token: str) -> str:
    """A token as unicode61 compares it: lower case, without diacritics."""
    if token.isascii():
        return token.lower()
    decomposed = unicodedata.normalize("NFD", token.lower())
    return "".join(ch for ch in decomposed if unicodedata.category(ch) != "Mn")


def parse_query(query: str) -> list[SearchTerm]:
    """The terms of a user query: each quoted phrase, then each word (`\\w+`, a trailing
    `*` for a prefix) split into its tokens; stop words are dropped when some other
    word is left, and so are words with no token (`_`) and repeats."""
    terms: list[SearchTerm] = []
    for phrase in _QUOTED.findall(query):
        tokens = tuple(_split(phrase.rstrip("*")))
        _add(terms, SearchTerm(tokens, phrase.endswith("*")))
    words: list[SearchTerm] = []
    for word in _WORD.findall(_QUOTED.sub(" ", query)):
        _add(words, SearchTerm(tuple(_split(word.rstrip("*"))), word.endswith("*")))
    meaningful = [
        w for w in words if w.prefix or w.is_phrase or _fold(w.tokens[0]) not in STOP_WORDS
    ]
    for w in meaningful if (meaningful or terms) else words:
        _add(terms, w)
    return terms


def _is_stop(word: SearchTerm) -> bool:
    return _fold(word.tokens[0]) in STOP_WORDS


def _add(terms: list[SearchTerm], term: SearchTerm) -> None:
    if term.tokens and term not in terms:
        terms.append(term)


@lru_cache(maxsize=65536)
def path_words(path: str) -> str:
    """An entity path as words to search: the path itself (unicode61 splits it at `/`,
    `.`, `_`, `::`) and, for each identifier in camel case, its words apart
    (`OrderLineFilterSet` also as "Order Line Filter Set")."""
    extra = [_CAMEL.sub(" ", w) for w in _WORD.findall(path) if _CAMEL.search(w)]
    return " ".join([path, *extra])


def search_fields(
    reasoning: object, alternative: object, metadata: object, path: str
) -> tuple[str, str, str, str]:
    """What an event is indexed under, in `FIELDS` order: its why, its alternative, the
    commit subjects an importer recorded (`revert_subject`, `original_subject`), and its
    entity's path as words."""
    subjects = ""
    if isinstance(metadata, Mapping):
        found = [metadata.get(k) for k in ("revert_subject", "original_subject")]
        subjects = " ".join(s for s in found if isinstance(s, str) and s)
    return (
        reasoning if isinstance(reasoning, str) else "",
        alternative if isinstance(alternative, str) else "",
        subjects,
        path_words(path),
    )


def line_fields(raw: Mapping[str, object], path: str) -> tuple[str, str, str, str]:
    """What a log line (parsed) is indexed under, its entity's canonical path given: a
    redacted event is found by its entity's path alone, its text being gone."""
    if raw.get("redacted"):
        return "", "", "", path_words(path)
    get = raw.get
    return search_fields(get("reasoning"), get("alternative"), get("metadata"), path)
