"""A project session: one project's decision log, opened, with the rules every surface
shares (statuses with their due reviews, hover cards, recording decisions).

    with Session.open(find_project()) as session:
        session.status("users.email")            # rollup + due reviews
        session.statuses(["users", "users.email"])  # a whole file, one query, + due reviews
        session.card("users.email", newest=6)    # what a hover card shows
        session.history("src/session.py::login")  # with what it did as src/auth.py::login
        session.record(DecisionRequest(entity=..., type="reject", reason=..., alternative=...))

The store keeps due reviews apart from statuses (a review falls due by date, not by
an event); the session joins them, once per log version and day, so `cairn status`,
`cairn check`, the hover card, the diagnostics and the agent tools report the same
reviews. Statuses, cards and histories follow renames (`cairn.core.aliases`): an
entity's former paths count, and `EntityStatus.formerly` names them. A session is not
thread-safe: the language server uses each one from its
store thread only (`cairn.lsp.store_thread`), and reads the `cached_*` answers from
the event loop, which are plain dictionary lookups.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import date
from types import TracebackType
from typing import TYPE_CHECKING

import msgspec
from msgspec.structs import replace as struct_replace

from cairn.core.decisions import DecisionRequest
from cairn.core.project import Project

if TYPE_CHECKING:
    from cairn.core.aliases import Aliases, Former
    from cairn.fingerprints import RevertPrint
    from cairn.store import AppendResult, EntityStatus, Event, EventDraft, Review, Store


class Card(msgspec.Struct, frozen=True):
    """What a hover card shows: the entity's status (rollup, due reviews) and its newest
    events (with every note on them), newest first. Immutable, so it can cross from the
    store thread to the loop."""

    status: EntityStatus
    newest: tuple[Event, ...] = ()


class _Version(msgspec.Struct):
    """What the session knows about the log at one version (its stat, and the day)."""

    key: object
    reviews: dict[str, list[Review]]  # entity -> its due reviews
    damage: str = ""  # lines verification rejects (ignored by every answer), for a notice
    statuses: dict[str, EntityStatus] = msgspec.field(default_factory=dict)
    cards: dict[str, Card] = msgspec.field(default_factory=dict)
    removals: dict[str, Event | None] = msgspec.field(default_factory=dict)
    prints: list[RevertPrint] | None = None  # open reverts' fingerprints, read once
    aliases: Aliases | None = None  # the rename links, read once


class Session:
    """One project's log, opened for reading and writing."""

    def __init__(self, project: Project, store: Store, *, few: bool = False) -> None:
        self.project = project
        self.store = store
        self._few = few
        self._version: _Version | None = None

    @classmethod
    def open(cls, project: Project, *, few: bool = False) -> Session:
        """Open (and catch up) the project's store; raises the store's `StoreError`s.

        `few`: the session answers a few questions and closes (a command, the gate), so
        renames are read for the paths it meets (`Aliases.reading`) instead of all at
        once: a long history's thousands of renames were most of a one-file check."""
        from cairn.store import Store

        def author() -> str:
            # git (and subprocess) only when a draft without an author is written: a
            # read-only command, the gate's above all, never asks
            from cairn.gitrefs import git_author

            return git_author(project.root)()

        store = Store.open(project.cairn_dir, author=author)
        return cls(project, store, few=few)

    @classmethod
    def of_store(cls, store: Store) -> Session:
        """A session over a store already open (an export given one); closing it closes
        the store."""
        return cls(Project(store.root, store.cairn_dir), store)

    def close(self) -> None:
        """Close the store."""
        self.store.close()

    def __enter__(self) -> Session:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # --- reading -----------------------------------------------------------------------

    def refresh(self) -> bool:
        """Catch up with the log; True when it changed underneath."""
        return bool(self.store.refresh())

    def warm(self) -> None:
        """Read what every first answer of a log version needs (due reviews, the rename
        links), so a caller can do it before the first question arrives."""
        self._aliases(self._current())

    def status(self, entity: str) -> EntityStatus:
        """The entity's status with its children's rollup and its due reviews, derived
        over its former paths' events too when it was renamed."""
        version = self._current()
        status = self._followed(version, self.store.status(entity), rollup=True)
        return self._with_reviews(version, status)

    def formerly(self, entity: str) -> tuple[Former, ...]:
        """The former paths of `entity`, nearest first (`cairn.core.aliases`)."""
        return self._formers_of(self._current(), entity)

    def did_you_mean(self, entity: str) -> list[str]:
        """Entity paths close to one the log does not know (from the log and the code):
        the one suggestion rule `cairn status`, `cairn_why` and the rest give."""
        return did_you_mean(self.store, entity)

    def renamed_to(self, entity: str) -> str | None:
        """The newest name of canonical `entity`, when it was renamed or moved."""
        return self._aliases(self._current()).renamed_to(entity)

    def later_names(self, entity: str) -> list[str]:
        """The names `entity` had after it, oldest first (`Aliases.later`)."""
        from cairn.store.paths import EntityPathError, canonicalise

        aliases = self._aliases(self._current())
        if not aliases:
            return []
        try:
            return aliases.later(canonicalise(entity))
        except EntityPathError:
            return []

    def history(
        self, entity: str, *, as_of: str | None = None, include_children: bool = False
    ) -> list[Event]:
        """Events on an entity (or below it), oldest first by recorded time, with those
        of its former paths up to their renames (children: as it is named now)."""
        own = self.store.history(entity, as_of=as_of, include_children=include_children)
        formers = self._formers_of(self._current(), entity)
        if not formers:
            return own
        pairs = [(f.path, f.until_ms) for f in formers]
        lineage = self.store.lineage_history(entity, pairs, as_of=as_of)
        if not include_children:
            return lineage
        merged = {e.id: e for e in (*own, *lineage)}
        return sorted(merged.values(), key=lambda e: e.recorded_at)

    def statuses(self, entities: Iterable[str]) -> dict[str, EntityStatus]:
        """`status_many` plus each entity's due reviews, cached per log version.

        What a file needs (diagnostics, `cairn check`): keys are the caller's strings.
        """
        version = self._current()
        wanted = list(entities)
        cached = version.statuses
        missing = [e for e in wanted if e not in cached]
        if missing:
            found = self.store.status_many(missing)
            # Without renames or due reviews (most logs, most of the time) a status is
            # kept as the store gave it: asking each of a cold batch's 500 whether it
            # has former paths or reviews was ~7% of the batch at 1M events.
            follow = bool(self._aliases(version))
            reviews = bool(version.reviews)
            for entity, status in found.items():
                if follow:
                    status = self._followed(version, status)
                cached[entity] = self._with_reviews(version, status) if reviews else status
        return {e: cached[e] for e in wanted}

    def card(self, entity: str, newest: int) -> Card:
        """The hover card's data for one entity (cached per log version)."""
        version = self._current()
        found = version.cards.get(entity)
        if found is None:
            status = self._followed(version, self.store.status(entity), rollup=True)
            status = self._with_reviews(version, status)
            events = self.history(entity) if status.event_count else []
            # Notes (`cairn annotate`) ride along with the newest events: the card shows
            # each with the event it explains, however old that event is.
            notes = [e for e in events if str(e.type) == "annotate"]
            events = [e for e in events if str(e.type) != "annotate"][-newest:] + notes
            ordered = sorted(events, key=lambda e: e.occurred_at or e.recorded_at, reverse=True)
            found = version.cards[entity] = Card(status, tuple(ordered))
        return found

    def removals(self, statuses: Mapping[str, EntityStatus]) -> dict[str, Event | None]:
        """The event that removed each `removed` entity among `statuses` (the notice a
        finding quotes), cached per log version."""
        from cairn.core.findings import latest_removal, removed

        version = self._current()
        out: dict[str, Event | None] = {}
        for entity in removed(statuses):
            if entity not in version.removals:
                version.removals[entity] = latest_removal(self.store.history(entity))
            out[entity] = version.removals[entity]
        return out

    def cached_removals(
        self, statuses: Mapping[str, EntityStatus]
    ) -> dict[str, Event | None] | None:
        """`removals` if every one is cached for the current log version, else None
        (safe from another thread, like `cached_statuses`)."""
        from cairn.core.findings import removed

        version = self._fresh()
        if version is None:
            return None
        found = version.removals
        wanted = removed(statuses)
        if not all(e in found for e in wanted):
            return None
        return {e: found[e] for e in wanted}

    def revert_prints(self) -> list[RevertPrint]:
        """The open reverts' change fingerprints (`cairn.fingerprints`), cached per log
        version: what a bring-back check (the gate, the diagnostics) matches against."""
        from cairn.fingerprints import PRINT_KEY, prints_from_reverts

        version = self._current()
        if version.prints is None:
            events = self.store.open_reverts(carrying=(PRINT_KEY,))
            version.prints = self._later_names(version, prints_from_reverts(events))
        return version.prints

    def revert_prints_for(self, words: Iterable[str]) -> list[RevertPrint]:
        """The open reverts' fingerprints that hold one of `words` (line hashes as a
        fingerprint writes them: `cairn.fingerprints.print_words`), whole: what a change
        made of those lines can match, found by hash, so a one-file check does not read
        every open revert of a long history. `revert_prints` when already read."""
        from cairn.fingerprints import prints_from_reverts

        version = self._current()
        if version.prints is not None:
            return version.prints
        events = self.store.open_reverts_printing(set(words))
        return self._later_names(version, prints_from_reverts(events))

    def _later_names(self, version: _Version, prints: list[RevertPrint]) -> list[RevertPrint]:
        aliases = self._aliases(version)
        if aliases:
            # A small match counts inside the reverted entity: under its later names too.
            for rp in prints:
                for entity, hashes in list(rp.per_entity.items()):
                    for name in aliases.later(entity):
                        rp.per_entity.setdefault(name, set()).update(hashes)
                        rp.entities.setdefault(name, rp.entities[entity])
        return prints

    def cached_revert_prints(self) -> list[RevertPrint] | None:
        """`revert_prints` if cached for the current log version, else None."""
        version = self._fresh()
        return None if version is None else version.prints

    def cached_statuses(self, entities: Iterable[str]) -> dict[str, EntityStatus] | None:
        """`statuses` if every one is cached for the current log version, else None.

        One `stat` of the log and dictionary lookups: safe to call from another thread
        than the one using the session (no iteration over what that thread may add).
        """
        version = self._fresh()
        if version is None:
            return None
        found = version.statuses
        wanted = list(entities)
        if not all(e in found for e in wanted):
            return None
        return {e: found[e] for e in wanted}

    def cached_card(self, entity: str) -> Card | None:
        """`card` if cached for the current log version, else None (see `cached_statuses`)."""
        version = self._fresh()
        return None if version is None else version.cards.get(entity)

    def uncached_cards(self, entities: Iterable[str]) -> list[str]:
        """The entities whose `card` is not cached for the current log version (one
        `stat` for all of them; safe from another thread, like `cached_statuses`)."""
        version = self._fresh()
        if version is None:
            return list(entities)
        cards = version.cards
        return [e for e in entities if e not in cards]

    def damage(self) -> str:
        """What is wrong with the log ("" when sound): lines verification rejects,
        which every answer ignores; surfaces show it once as a warning."""
        return self._current().damage

    def known_damage(self) -> str:
        """`damage()` as the last answer knew it, without touching the store (safe from
        another thread, like the `cached_*` reads)."""
        version = self._version
        return version.damage if version is not None else ""

    def due_reviews(self, *, today: date | None = None) -> list[Review]:
        """Decisions due for review (the store's rule)."""
        return self.store.due_reviews(today=today)

    # --- writing -----------------------------------------------------------------------

    def record(
        self, request: DecisionRequest, *, author: str = "", agent: str = "", session: str = ""
    ) -> AppendResult:
        """Append a complete, checked request (`cairn.core.decisions.check`)."""
        from cairn.store import EventDraft

        if request.reason is None:
            raise ValueError("a decision needs its reasoning before it is recorded")
        draft = EventDraft(
            type=request.type,
            entity=request.entity,
            reasoning=request.reason,
            alternative=request.alternative or "",
            supersedes=request.supersedes or "",
            reverts=request.reverts or "",
            author=author,
            agent=agent,
            session=session,
            key=request.key or "",
        )
        return self.append(draft)

    def append(self, draft: EventDraft) -> AppendResult:
        """Append one event; the store validates, masks secrets and writes it whole.

        A supersede named on an entity's new path re-opens a verdict taken under a
        former path: it is written on the verdict's own entity, where it was decided.
        """
        if str(draft.type) == "supersede":
            draft = self._supersede_where_decided(draft)
        return self.store.append(draft)

    def record_rename(
        self, old: str, new: str, reason: str, *, agent: str = "", key: str = ""
    ) -> list[Event]:
        """Record that `old` is now `new` (both halves, `cairn.core.aliases.rename_drafts`),
        so its history follows it; one lock, one transaction. A retry with the same `key`
        writes nothing and returns the events first written."""
        from cairn.core.aliases import rename_drafts

        drafts = rename_drafts(old, new, reason, agent=agent, key=key)
        return self.store.append_many(drafts)

    def decisions_under(self, path: str) -> int:
        """How many events are logged on `path` or below it (what a rename would carry)."""
        return len(self.store.history(path, include_children=True))

    def _supersede_where_decided(self, draft: EventDraft) -> EventDraft:
        version = self._current()
        if not self._formers_of(version, draft.entity):
            return draft
        status = self._followed(version, self.store.status(draft.entity))
        wanted = (draft.supersedes or "").strip().lower()
        found = [v for v in status.open_verdicts if not wanted or v.id.startswith(wanted)]
        if any(v.entity == status.entity for v in found):
            return draft  # the store's own rule decides among the entity's own verdicts
        if len(found) == 1:
            return struct_replace(draft, entity=found[0].entity, supersedes=found[0].id)
        if len(found) > 1 and not wanted:
            from cairn.store import AmbiguousTarget

            ids = [v.id for v in found]
            raise AmbiguousTarget(
                f"{status.entity} has {len(ids)} open verdicts (under former paths too); "
                "choose one with --of: " + ", ".join(ids),
                ids,
            )
        return draft

    # --- the version cache -------------------------------------------------------------

    def _fresh(self) -> _Version | None:
        version = self._version
        return version if version is not None and version.key == log_version(self.project) else None

    def _current(self) -> _Version:
        version = self._fresh()
        if version is None:
            key = log_version(self.project)
            reviews: dict[str, list[Review]] = {}
            for review in self.store.due_reviews():
                reviews.setdefault(review.event.entity, []).append(review)
            version = self._version = _Version(key, reviews, damage_message(self.store))
        return version

    def _aliases(self, version: _Version) -> Aliases:
        if version.aliases is None:
            from cairn.core.aliases import LINK_KEYS, Aliases

            if self._few:
                version.aliases = Aliases.reading(self.store)
            else:
                version.aliases = Aliases.from_events(self.store.renames(carrying=LINK_KEYS))
        return version.aliases

    def _formers_of(self, version: _Version, entity: str) -> tuple[Former, ...]:
        aliases = self._aliases(version)
        if not aliases:
            return ()
        from cairn.store.paths import EntityPathError, canonicalise

        try:
            return aliases.formerly(canonicalise(entity))
        except EntityPathError:  # a bare root (`deps/`): no entity, no former name
            return ()

    def _followed(
        self, version: _Version, status: EntityStatus, *, rollup: bool = False
    ) -> EntityStatus:
        """`status` derived over the entity's former paths too, when it has any; with
        `rollup`, the former paths' children count as its own (under its name)."""
        formers = self._formers_of(version, status.entity)
        if not formers:
            return status
        pairs = [(f.path, f.until_ms) for f in formers]
        linked = self._aliases(version).linked([status.entity, *(f.path for f in formers)])
        found = self.store.lineage_status(status.entity, pairs, linked=linked)
        children = dict(status.rollup)
        for former in formers if rollup else ():
            for child, state in self.store.status(former.path).rollup.items():
                children.setdefault(status.entity + child[len(former.path) :], state)
        return struct_replace(found, rollup=children)

    @staticmethod
    def _with_reviews(version: _Version, status: EntityStatus) -> EntityStatus:
        due = version.reviews.get(status.entity)
        return struct_replace(status, due_reviews=list(due)) if due else status


def did_you_mean(store: Store, entity: str) -> list[str]:
    """Entity paths close to `entity`, which the log does not know: from the log's
    entities and the code's (`cairn.core.suggest`). Every surface suggests through this."""
    from cairn.core.suggest import suggest

    return suggest(entity, store.entities(), store.root)


def log_version(project: Project) -> object:
    """Changes whenever the log does, or the day does (reviews fall due by date)."""
    try:
        st = project.log.stat()
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino, date.today().toordinal())


def damage_message(store: Store) -> str:
    """The store's note about lines verification rejects, "" when there are none."""
    damage = store.damage
    return damage.message() if damage else ""
