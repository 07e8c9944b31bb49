"""Former names: the one place that says which paths an entity had before it was renamed
or moved, so what was decided under an old name still holds under the new one.

    aliases = Aliases.from_events(store.renames(carrying=LINK_KEYS))
    aliases.formerly("src/session.py::login")
    # (Former("src/auth.py::login", until_ms=...),)  nearest first

A `rename` event links two names: on the old path with `metadata.renamed_to`, or on
the new one with `metadata.renamed_from` (importers write both; either is enough). A
link renames everything its old path covers: `src/auth.py -> src/session.py` makes
`src/auth.py::login` a former path of `src/session.py::login`, and a table rename
carries its columns. Chains are followed (a -> b -> c gives c the formers b and a),
cycles are harmless; where links at several levels cover a path (a class renamed with
its file: `Old.java::Old -> New.java::New` and `Old.java -> New.java`), the most
specific one says what it was. At most MAX_FORMERS paths come back, at most MAX_DEPTH
renames deep, so a pathological log cannot make a hover slow.

A former path counts only up to the rename (`until_ms`: when the rename happened, the
earliest along a chain): a file created again under the old name later is another file,
and its history is not the renamed one's.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

import msgspec

from cairn.store.paths import EntityPathError, canonicalise, covers, split_overload
from cairn.store.times import to_ms

if TYPE_CHECKING:
    from cairn.store import Event, EventDraft

__all__ = [
    "LINK_KEYS",
    "MAX_DEPTH",
    "MAX_FORMERS",
    "Aliases",
    "Former",
    "Link",
    "carries",
    "former_of",
    "members_of",
    "rename_drafts",
]

MAX_FORMERS = 32
MAX_DEPTH = 16


@dataclass(frozen=True, slots=True)
class Link:
    """One rename: `old` became `new` at `at_ms` (epoch ms of when it happened).

    `members`, on a container's link (a file or a class renamed), is what the old path
    declared then, by path inside the file, each with the parameter types it would have
    as an overload where its name was not overloaded (`{"Old.get": "(int)", "Old": ""}`);
    the link carries only those (`former_of`). None: a link that does not say, which
    carries everything."""

    old: str
    new: str
    at_ms: int
    members: Mapping[str, str] | None = field(default=None, compare=False)


class Former(msgspec.Struct, frozen=True):
    """A path the entity had before, and until when its events are the entity's."""

    path: str
    until_ms: int


# The metadata keys that make a `rename` a link (old path -> new path, new <- old).
LINK_KEYS = ("renamed_to", "renamed_from")


class LinkSource(Protocol):
    """Where `Aliases.reading` asks for links (`cairn.store.Store` answers this)."""

    def rename_links(
        self, paths: Collection[str], *, by_new: bool
    ) -> list[tuple[str, str, int, str | None]]: ...

    def has_rename_links(self) -> bool: ...


class Aliases:
    """The rename links of one log version, indexed by their new path (and old).

    Built from every link (`from_events`: the language server, which asks about whole
    files for as long as the log stays), or read as asked (`reading`: a command asking
    about a few entities reads the links of the paths it meets, not every rename of a
    long history). The same answers either way: a path's links are read all at once
    and ordered alike.
    """

    def __init__(self, links: Iterable[Link], source: LinkSource | None = None) -> None:
        self._by_new: dict[str, list[Link]] = {}
        self._by_old: dict[str, list[Link]] = {}
        self._source = source
        self._any: bool | None = None
        self._asked: dict[bool, set[str]] = {True: set(), False: set()}  # by_new -> paths
        for link in _newest_first(links):
            self._by_new.setdefault(link.new, []).append(link)
            self._by_old.setdefault(link.old, []).append(link)

    @classmethod
    def reading(cls, source: LinkSource) -> Aliases:
        """Links read from `source` as paths are asked about."""
        return cls((), source)

    @classmethod
    def from_events(cls, events: Iterable[Event]) -> Aliases:
        """Links from `rename` events; a path that is not an entity path is skipped."""
        links: list[Link] = []
        for event in events:
            meta = event.metadata if isinstance(event.metadata, dict) else {}
            at = _ms(event.when)
            members = members_of(meta.get("members"))
            for key, forward in zip(LINK_KEYS, (True, False), strict=True):
                other = _canonical(meta.get(key))
                if other is None:
                    continue
                old, new = (event.entity, other) if forward else (other, event.entity)
                links.append(Link(old, new, at, members))
        return cls(links)

    def __bool__(self) -> bool:
        if self._source is None:
            return bool(self._by_new)
        if self._any is None:
            self._any = self._source.has_rename_links()
        return self._any

    def formerly(self, entity: str) -> tuple[Former, ...]:
        """The former paths of canonical `entity`, nearest first (bounded, cycle-safe)."""
        if not self:
            return ()
        out: list[Former] = []
        seen = {entity}
        queue: deque[tuple[str, int, int]] = deque([(entity, _FOREVER, 0)])
        while queue and len(out) < MAX_FORMERS:
            path, until, depth = queue.popleft()
            if depth >= MAX_DEPTH:
                continue
            # Only the most specific link: a class renamed with its file has a link of
            # its own, and the file's would carry its members to paths that never were.
            for new in _most_specific(path, self._covering(path)):
                suffix = path[len(new) :]
                for link in self._by_new[new]:
                    former = former_of(link, suffix)
                    if former is None or former in seen or _canonical(former) != former:
                        continue
                    seen.add(former)
                    bound = min(until, link.at_ms)
                    out.append(Former(former, bound))
                    queue.append((former, bound, depth + 1))
        return tuple(out[:MAX_FORMERS])

    def linked(self, paths: Iterable[str]) -> list[str]:
        """Those of `paths` that a rename named as its new path (where importers write
        the rename's other half, an `add`/`create` with `renamed_from`)."""
        wanted = list(paths)
        table = self._table(wanted, by_new=True)
        return [p for p in wanted if p in table]

    def renamed_to(self, entity: str) -> str | None:
        """The newest name of canonical `entity` when it (or what covers it) was renamed."""
        for old in self._covering(entity, by_new=False):
            new = self._by_old[old][0].new
            if carries(new, entity[len(old) :]):
                return _carried(new, entity[len(old) :])
        return None

    def later(self, entity: str) -> list[str]:
        """The names canonical `entity` had after it, oldest first (bounded, cycle-safe)."""
        out: list[str] = []
        seen = {entity}
        current: str | None = entity
        while current is not None and len(out) < MAX_DEPTH:
            current = self.renamed_to(current)
            if current is None or current in seen:
                break
            seen.add(current)
            out.append(current)
        return out

    def _covering(self, path: str, *, by_new: bool = True) -> list[str]:
        """Linked paths that name `path` or cover it (a file its symbols, a table its
        columns, a directory what is below it), the most specific first."""
        candidates = [path]
        bare, overload = split_overload(path)
        if overload:  # a link on the bare name carries every overload of it
            candidates.append(bare)
            path = bare
        for i in range(len(path) - 1, 0, -1):
            ch = path[i]
            if ch == "/":
                candidates.append(path[: i + 1])
            elif ch == "." or (ch == ":" and path[i - 1] == ":"):
                candidates.append(path[: i - 1] if ch == ":" else path[:i])
        table = self._table(candidates, by_new=by_new)
        return [c for c in candidates if c in table and covers(c, candidates[0])]

    def _table(self, paths: Iterable[str], *, by_new: bool) -> dict[str, list[Link]]:
        """The links by new (or old) path, those of `paths` read first when reading."""
        table = self._by_new if by_new else self._by_old
        if self._source is None:
            return table
        asked = self._asked[by_new]
        wanted = set(paths) - asked
        if wanted:
            asked |= wanted
            found: dict[str, list[Link]] = {}
            for old, new, when_ms, raw in self._source.rename_links(wanted, by_new=by_new):
                link = Link(old, new, _end(when_ms), members_of(json.loads(raw) if raw else None))
                found.setdefault(new if by_new else old, []).append(link)
            for path, links in found.items():
                kept = _newest_first(links)
                if kept:
                    table[path] = kept
        return table


def _newest_first(links: Iterable[Link]) -> list[Link]:
    """The newest rename first, one link per (old, new), none from a path to itself."""
    out: list[Link] = []
    seen: set[tuple[str, str]] = set()
    for link in sorted(links, key=lambda k: -k.at_ms):
        if link.old == link.new or (link.old, link.new) in seen:
            continue
        seen.add((link.old, link.new))
        out.append(link)
    return out


_FOREVER = 2**62


def _canonical(raw: object) -> str | None:
    if not isinstance(raw, str) or not raw.strip():
        return None
    try:
        return canonicalise(raw)
    except EntityPathError:
        return None


def _ms(ts: str) -> int:
    """The end of the second `ts` falls in (`_end`)."""
    try:
        return _end(to_ms(ts))
    except ValueError:
        return _FOREVER


def _end(ms: int) -> int:
    """The end of the second `ms` falls in: commit dates and file times have whole
    seconds, so what was logged within the rename's second still counts as before it."""
    return ms // 1000 * 1000 + 999


def rename_drafts(
    old: str, new: str, reasoning: str, *, agent: str = "", key: str = ""
) -> list[EventDraft]:
    """The two halves of a rename someone records (the editor's offer, an agent): on the
    old path with `renamed_to`, on the new one with `renamed_from`; `key` (idempotency)
    becomes one key per half. ValueError (an `EntityPathError`) when either is not an
    entity path or they name the same one."""
    from cairn.store import EventDraft

    before, after = canonicalise(old), canonicalise(new)
    if before == after:
        raise EntityPathError(f"{old} and {new} are the same entity; nothing was renamed")
    return [
        EventDraft(
            type="rename",
            entity=before,
            reasoning=reasoning,
            agent=agent,
            metadata={"renamed_to": after},
            key=f"{key}:from" if key else "",
        ),
        EventDraft(
            type="rename",
            entity=after,
            reasoning=reasoning,
            agent=agent,
            metadata={"renamed_from": before},
            key=f"{key}:to" if key else "",
        ),
    ]


def _most_specific(path: str, covering: list[str]) -> list[str]:
    """The links that say what `path` was: the most specific; for an overload whose
    most specific link is its bare name's, the next one too (a class renamed with its
    file), since the bare name's former path is every overload and the class's keeps
    this one's own (both existed)."""
    if len(covering) > 1 and covering[0] != path and covering[0] == split_overload(path)[0]:
        return covering[:2]
    return covering[:1]


def carries(other: str, suffix: str) -> bool:
    """Whether a link whose other end is `other` carries a path it covers by `suffix`:
    a link on a bare name (`C.m -> C.n`) carries every overload, but one from or to a
    single overload (`C.m(int) -> C.m`, its sibling removed) says nothing of the others."""
    return not (suffix.startswith("(") and split_overload(other)[1])


def former_of(link: Link, suffix: str) -> str | None:
    """The path `link` makes of the path its new end covers by `suffix`, or None when it
    carries none: a path that never existed is not a former path. A container's link
    that lists its members carries a member only where the old file declared it; an
    overload it did not declare is its bare name where the old file had that name
    alone (the method was not overloaded yet), else nothing."""
    if not carries(link.old, suffix):
        return None
    former = _carried(link.old, suffix)
    if link.members is None or not suffix or former == link.old:
        return former
    _, sep, inner = former.partition("::")
    if not sep or inner in link.members:
        return former
    bare, overload = split_overload(former)
    # Its name alone in the old file, with these parameters (or ones not known): the
    # method before a sibling came; another lone method's parameters, or overloads of
    # the name there (the bare name is then all of them): not this one.
    name = bare.partition("::")[2]
    lone = link.members.get(name)
    if not overload or lone not in (overload, ""):
        return None
    return None if any(m.startswith(name + "(") for m in link.members) else bare


def members_of(raw: object) -> Mapping[str, str] | None:
    """A link's `members` (metadata or its JSON column): inner path -> the parameter
    types of a method whose name was not overloaded ("" for anything else), or None."""
    if isinstance(raw, dict) and all(
        isinstance(k, str) and isinstance(v, str) for k, v in raw.items()
    ):
        return raw
    return None


def _carried(base: str, suffix: str) -> str:
    """What a link's path `base` makes of the rest of a path it covers: a member keeps
    its tail (`Old::f` -> `New::f`), while an overload under a link on its bare name
    is that name (the link is about every overload; which ones existed then, it does
    not say)."""
    return base if suffix.startswith("(") else base + suffix
