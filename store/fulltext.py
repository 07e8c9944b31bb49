"""What full-text search looks for, apart from SQL: a query's terms and their phrases.

Search finds an event when each of the query's words is in the event's own text (its
why and alternative) OR in its entity's path. The index keeps the two apart: the event
text in `event_fts`, a contentless FTS5 table with `detail=none` (which document holds
a word, not where: a quarter of the bytes of full detail), and each entity's path once
in `entity_fts` (full detail: paths are few). A word that FTS5 splits into several
tokens (`card_token`, `fn_2`) is a phrase: `entity_fts` matches it as one; `event_fts`
cannot, so its tokens are looked up there and an event holding them all is
checked here (`holds`) against its text read back from the log.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

__all__ = ["SearchTerm", "holds", "parse_query", "text_tokens"]

_WORD = re.compile(r"[\w]+\*?", re.UNICODE)


@dataclass(frozen=True, slots=True)
class SearchTerm:
    """One word of a query: its tokens (as FTS5's unicode61 splits them) and whether
    the last one is a prefix (`word*`)."""

    tokens: tuple[str, ...]
    prefix: bool

    def phrase(self) -> str:
        """The FTS5 form that matches the tokens next to each other (for `entity_fts`)."""
        return f'"{" ".join(self.tokens)}"' + ("*" if self.prefix else "")

    def each_token(self) -> str:
        """The FTS5 form that matches a document holding every token (for `event_fts`, whose
        `detail=none` refuses phrases): `holds` checks they are next to each other."""
        last = len(self.tokens) - 1
        return " ".join(
            f'"{t}"' + ("*" if self.prefix and i == last else "") for i, t in enumerate(self.tokens)
        )


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
    """The words of a user query (`\\w+`, a trailing `*` for a prefix), each split into
    its tokens; words with none (`_`) and repeated words are dropped."""
    terms: list[SearchTerm] = []
    for word in _WORD.findall(query):
        star = word.endswith("*")
        tokens = tuple(_split(word.rstrip("*")))
        term = SearchTerm(tokens, star)
        if tokens and term not in terms:
            terms.append(term)
    return terms


def text_tokens(text: str) -> list[str]:
    """The folded tokens of a text, in order (what `holds` compares phrases against)."""
    return [_fold(t) for t in _split(text)]


def holds(tokens: list[str], term: SearchTerm) -> bool:
    """True when the folded `tokens` of a text hold the term's tokens next to each
    other (the last as a prefix for `word*`): what a phrase query would have matched."""
    want = [_fold(t) for t in term.tokens]
    head, last = want[:-1], want[-1]
    width = len(want)
    for i in range(len(tokens) - width + 1):
        if tokens[i : i + width - 1] == head:
            found = tokens[i + width - 1]
            if found == last or (term.prefix and found.startswith(last)):
                return True
    return False
