"""The four MCP tools and the entity resource, as plain functions of JSON arguments.

No MCP import here: `cairn.agents.mcp_server` wires these into the SDK, and tests can
call them directly. Every answer comes from the shared code the CLI and the language
server use: statuses, history, prior attempts, search and writes from the store, findings
and the gate from `cairn check`'s analysis, entities of a file from the indexer. This
module validates arguments, calls those, and lays the answers out compactly.

A validation failure is a `ToolError` whose message is the one line the CLI prints
(without its `cairn: error:` prefix); nothing is written when one is raised.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cairn.core.decisions import loggable_types
from cairn.core.listing import Listed
from cairn.core.present import (
    blocked_explanation,
    clip,
    count_label,
    day,
    finding_line,
    in_mcp_terms,
    logged,
    more_entities,
    no_decisions_hint,
    short_id,
)
from cairn.core.project import Project, ProjectNotFound, find_project
from cairn.limits import MAX_FILE_BYTES

MAX_TEXT = 100_000  # characters in one text argument (reasoning, alternative)
MAX_CONTENT = MAX_FILE_BYTES  # the one file-size limit: larger files are generated
MAX_ENTITIES = 200
MAX_PATH = 4096  # characters in an entity path or a file path
MAX_DETAILED = 40  # entities described in full in one answer; the rest are listed
MAX_SUGGESTED = 5  # unknown entities given "did you mean" (each costs a search of the code)
SEARCH_DEFAULT, SEARCH_MAX = 10, 50
# The store's vocabulary less redact and annotate: both name an *event*, not an entity
# (`cairn redact ID`, `cairn annotate ID`), and this tool has no argument for one.
RECORD_TYPES = [t for t in loggable_types() if t != "annotate"]

_PATH_HINT = "entity paths such as users.email, src/auth.py::login, deps/stripe"

TOOLS: list[dict[str, Any]] = [
    {
        "name": "cairn_why",
        "description": (
            "Why code is the way it is: status, open reverts/rejects with reasons, "
            "conflicts, prior attempts, due reviews. Ask before re-adding or changing "
            "an entity."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "entities": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": _PATH_HINT,
                },
                "path": {"type": "string", "description": "a file: every entity in it"},
            },
        },
    },
    {
        "name": "cairn_search",
        "description": "Full-text search over recorded decisions, best match first.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "query": {"type": "string"},
                "limit": {"type": "integer", "minimum": 1, "maximum": SEARCH_MAX, "default": 10},
            },
            "required": ["query"],
        },
    },
    {
        "name": "cairn_check",
        "description": (
            "Check a proposed new content of a file before writing it: findings where it "
            "re-introduces a reverted or rejected entity (same as `cairn check`)."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "the file, relative to the project"},
                "content": {"type": "string", "description": "its full proposed content"},
            },
            "required": ["path", "content"],
        },
    },
    {
        "name": "cairn_record",
        "description": (
            "Record a decision on an entity, with the reasoning. reject: the entity was "
            "rejected (alternative: the approach, optional); supersede re-opens a verdict."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "entity": {"type": "string"},
                "type": {"type": "string", "enum": RECORD_TYPES},
                "reasoning": {"type": "string"},
                "alternative": {"type": "string"},
                "of": {"type": "string", "description": "id of the verdict a supersede re-opens"},
                "reverts": {"type": "string", "description": "id of the change a revert undoes"},
                "key": {
                    "type": "string",
                    "description": (
                        "idempotency key: a retry with the same key writes nothing and "
                        "returns the event first written"
                    ),
                },
            },
            "required": ["entity", "type", "reasoning"],
        },
    },
]

RESOURCE_TEMPLATE = "cairn://entity/{path}"
RESOURCE_PREFIX = "cairn://entity/"


class ToolError(Exception):
    """Arguments the tool cannot act on; the message is one line for the agent."""


@dataclass(frozen=True, slots=True)
class Answer:
    """A tool's answer: compact text for the model and the same facts as JSON."""

    text: str
    data: dict[str, Any]
    is_error: bool = False


def schemas_json() -> str:
    """The tool list as `tools/list` sends it, compact (what the size budget counts)."""
    return json.dumps(TOOLS, separators=(",", ":"), ensure_ascii=False)


class AgentTools:
    """One MCP connection's view of one project: the store opens on first use."""

    def __init__(self, start: Path | None = None) -> None:
        self._start = start
        self._project: Project | None = None
        self._session: Any = None

    # --- plumbing -----------------------------------------------------------------------

    def project(self) -> Project:
        if self._project is None:
            try:
                self._project = find_project(self._start)
            except ProjectNotFound as exc:
                raise ToolError(str(exc)) from None
        return self._project

    def session(self) -> Any:
        """The core's project session, open for the connection's lifetime: its status
        cache and revert prints carry over between calls until the log changes."""
        if self._session is None:
            from cairn.core.session import Session
            from cairn.store import StoreError

            try:
                self._session = Session.open(self.project())
            except StoreError as exc:
                raise ToolError(f"cannot read the decision log: {exc}") from None
        return self._session

    def store(self) -> Any:
        """The store, for plain reads (history, search, prior attempts)."""
        return self.session().store

    def close(self) -> None:
        if self._session is not None:
            self._session.close()
            self._session = None

    def call(self, name: str, arguments: object, *, agent: str = "", session: str = "") -> Answer:
        """Run one tool; validation and store errors become `is_error` answers."""
        from cairn.store import StoreError
        from cairn.store.paths import EntityPathError

        handlers = {
            "cairn_why": self.why,
            "cairn_search": self.search,
            "cairn_check": self.check,
        }
        try:
            args = _object(name, arguments)
            if name == "cairn_record":
                return self.record(args, agent=agent, session=session)
            handler = handlers.get(name)
            if handler is None:
                known = ", ".join(t["name"] for t in TOOLS)
                raise ToolError(f"unknown tool {clip(name, 60)!r}; the tools are {known}")
            return handler(args)
        except ToolError as exc:
            return _error(str(exc))
        except (StoreError, EntityPathError) as exc:
            # The store words its errors for the CLI; the agent sets arguments, not flags.
            return _error(in_mcp_terms(str(exc)))

    # --- cairn_why ----------------------------------------------------------------------

    def why(self, args: Mapping[str, object]) -> Answer:
        _allowed("cairn_why", args, {"entities", "path"})
        raw_entities = args.get("entities")
        path = _text("cairn_why", args, "path", required=False, limit=MAX_PATH)
        if raw_entities is None and not path:
            raise ToolError(
                "cairn_why: give 'entities' (a list of entity paths) or 'path' (a file)"
            )
        wanted: list[str] = []
        if raw_entities is not None:
            if not isinstance(raw_entities, list) or not all(
                isinstance(e, str) for e in raw_entities
            ):
                raise ToolError("cairn_why: 'entities' must be a list of strings")
            if len(raw_entities) > MAX_ENTITIES:
                raise ToolError(f"cairn_why: at most {MAX_ENTITIES} entities per call")
            if any(len(e) > MAX_PATH for e in raw_entities):
                raise ToolError(f"cairn_why: an entity path is longer than {MAX_PATH:,} characters")
            wanted += [e.strip() for e in raw_entities if e.strip()]
        file_rel = None
        if path:
            from cairn.agents.digest import entities_in_files

            file_rel = self._relpath(path)
            if not (self.project().root / file_rel).is_file():
                raise ToolError(f"no such file: {path}")
            found = entities_in_files(self.project(), [file_rel])
            wanted += [file_rel, *sorted(found - {file_rel})]
        from cairn.store.paths import canonicalise

        entities = list(dict.fromkeys(canonicalise(e) for e in wanted))
        session = self.session()
        counts = session.statuses(entities)
        recorded = [e for e in entities if counts[e].event_count]
        silent = [e for e in entities if not counts[e].event_count]
        detailed, listed = recorded[:MAX_DETAILED], recorded[MAX_DETAILED:]
        blocks: list[str] = []
        records: list[dict[str, Any]] = []
        from cairn.core.listing import file_removed, moved_to

        for entity in detailed:
            status = session.status(entity)  # every conflict, the rollup, due reviews
            attempts = session.store.prior_attempts(entity)
            conflicts = session.store.events_of(status.conflicts)
            # named as `cairn ls` and `cairn status` name it: former paths, where it went
            moved = moved_to(session, entity)  # then its file is gone because it moved
            gone = moved is None and file_removed(session, entity)
            row = Listed(entity, status, tuple(status.formerly), gone)
            text, record = _describe(row, conflicts, attempts, moved)
            blocks.append(text)
            records.append(record)
        if listed:
            blocks.append(f"{len(listed)} more with decisions: {clip(', '.join(listed), 600)}")
        suggestions: dict[str, list[str]] = {}
        if raw_entities is not None and len(silent) <= MAX_SUGGESTED:
            # Asked by name (not the entities of a file): suggest as `cairn status` does.
            for entity in silent:
                suggestions[entity] = session.did_you_mean(entity)
                blocks.append(no_decisions_hint(entity, suggestions[entity], "mcp"))
        elif silent:
            blocks.append(f"no decisions recorded on: {clip(', '.join(silent), 600)}")
        answer: dict[str, Any] = {
            "entities": records,
            "more": listed,
            "no_decisions": silent,
            "did_you_mean": suggestions,
        }
        if file_rel is not None:
            answer["file"] = file_rel
        return Answer("\n".join(blocks), answer)

    # --- cairn_search -------------------------------------------------------------------

    def search(self, args: Mapping[str, object]) -> Answer:
        _allowed("cairn_search", args, {"query", "limit"})
        query = _text("cairn_search", args, "query", limit=1000)
        limit = args.get("limit", SEARCH_DEFAULT)
        if isinstance(limit, bool) or not isinstance(limit, int):
            raise ToolError("cairn_search: 'limit' must be an integer")
        if not 1 <= limit <= SEARCH_MAX:
            raise ToolError(f"cairn_search: 'limit' must be between 1 and {SEARCH_MAX}")
        from cairn.core.listing import named_line

        hits = self.store().search(query, limit=limit)
        lines, records = [], []
        for hit in hits:
            e = hit.event
            extra = f" (alternative: {clip(e.alternative, 80)})" if e.alternative else ""
            name, note, line = named_line(self.session(), e.entity)  # as `cairn search`
            lines.append(
                f"{line}{more_entities(hit)} {e.type.value} {day(e.when)} "
                f"{short_id(e.id)}: {clip(e.reasoning, 240)}{extra}"
            )
            # One decision on several entities is one hit; every id and entity is kept.
            records.append(
                _event_dict(e)
                | {
                    "named": name,
                    "note": note,
                    "score": round(hit.score, 4),
                    "entities": [x.entity for x in hit.events],
                    "ids": [x.id for x in hit.events],
                }
            )
        text = "\n".join(lines) if lines else f"no decisions match {clip(query, 80)!r}"
        return Answer(text, {"hits": records})

    # --- cairn_check --------------------------------------------------------------------

    def check(self, args: Mapping[str, object]) -> Answer:
        _allowed("cairn_check", args, {"path", "content"})
        path = _text("cairn_check", args, "path", limit=MAX_PATH)
        content = args.get("content")
        if not isinstance(content, str):
            raise ToolError("cairn_check: 'content' must be a string (the file's proposed text)")
        if len(content) > MAX_CONTENT:
            raise ToolError(
                "cairn_check: 'content' is larger than 4 MB; generated files are not checked"
            )
        report = self._run_check(path, content)
        lines = [finding_line(f, column=False) for f in report.findings]
        blocking = report.blocking
        explanation = blocked_explanation(blocking, "mcp")
        lines.append(explanation or "ok: nothing re-introduces a reverted or rejected entity")
        data = report.to_dict()  # what `cairn check --json` prints
        if explanation:
            data["explanation"] = explanation  # in this surface's terms
        return Answer("\n".join(lines), data)

    def _run_check(self, path: str, content: str) -> Any:
        """`cairn check --stdin-filename PATH` (the same rule: `gate.edit_target`), run in
        process on this project."""
        from cairn.core.gate import EditRefused, check, edit_target
        from cairn.store import StoreError

        project = self.project()
        data = content.encode("utf-8", "surrogatepass")
        try:
            target = edit_target(project, self._relpath(path), data)
            return check(project, [target], self.session())
        except EditRefused as exc:  # the gate fails closed: refused, never passed unchecked
            raise ToolError(str(exc)) from None
        except StoreError as exc:
            raise ToolError(f"cannot read the decision log: {exc}") from None

    # --- cairn_record -------------------------------------------------------------------

    def record(self, args: Mapping[str, object], *, agent: str, session: str) -> Answer:
        from cairn.store import EventDraft

        keys = {"entity", "type", "reasoning", "alternative", "of", "reverts", "key"}
        _allowed("cairn_record", args, keys)
        event_type = _text("cairn_record", args, "type", limit=64).strip().lower()
        if event_type == "redact":
            raise ToolError(
                "redact is refused over MCP: erasing history is a human act; "
                "ask the user to run `cairn redact ID --reason ...`"
            )
        if event_type == "annotate":
            raise ToolError(
                "cairn_record: annotate adds a note to an earlier event and needs its id, "
                "which this tool does not take; record the reason as a decision, or ask the "
                "user to run `cairn annotate ID`"
            )
        if event_type not in RECORD_TYPES:
            raise ToolError(
                f"cairn_record: unknown type {clip(event_type, 40)!r}; "
                f"'type' is one of {', '.join(RECORD_TYPES)}"
            )
        entity = _text("cairn_record", args, "entity", limit=MAX_PATH)
        reasoning = _text("cairn_record", args, "reasoning", limit=MAX_TEXT, allow_empty=True)
        alternative = _text("cairn_record", args, "alternative", required=False, limit=MAX_TEXT)
        of = _text("cairn_record", args, "of", required=False, limit=128)
        reverts = _text("cairn_record", args, "reverts", required=False, limit=128)
        key = _text("cairn_record", args, "key", required=False, limit=MAX_PATH)
        draft = EventDraft(
            type=event_type,
            entity=entity,
            reasoning=reasoning,
            alternative=alternative,
            supersedes=of,
            reverts=reverts,
            agent=agent,
            session=session,
            key=key,
        )
        result = self.session().append(draft)  # as `cairn log` does: the store validates
        event = result.event
        done, links = logged(event, result.replayed)
        text = f"{done} {event.type.value} on {event.entity} {short_id(event.id)}{links}"
        if result.masked:
            text += f"; masked secrets before writing: {', '.join(result.masked)}"
        data = {**_event_dict(event), "masked": list(result.masked), "replayed": result.replayed}
        return Answer(text, data)

    # --- the resource -------------------------------------------------------------------

    def history_markdown(self, uri: str) -> str:
        """`cairn://entity/{path}`: the entity's history as Markdown (children included)."""
        from urllib.parse import unquote

        from cairn.core.present import history_markdown
        from cairn.store.paths import canonicalise

        if not uri.startswith(RESOURCE_PREFIX):
            raise ToolError(f"unknown resource {clip(uri, 80)!r}; expected {RESOURCE_TEMPLATE}")
        raw = unquote(uri[len(RESOURCE_PREFIX) :])
        if not raw.strip():
            raise ToolError(f"no entity in {uri!r}; expected {RESOURCE_TEMPLATE}")
        entity = canonicalise(raw)
        events = self.session().history(entity, include_children=True)
        return history_markdown(entity, events)

    # --- helpers ------------------------------------------------------------------------

    def _relpath(self, path: str) -> str:
        root = self.project().root.resolve()
        candidate = Path(path)
        absolute = candidate if candidate.is_absolute() else root / candidate
        try:
            return absolute.resolve().relative_to(root).as_posix()
        except ValueError:
            raise ToolError(f"{path} is outside the project at {root}") from None


def _error(message: str) -> Answer:
    line = " ".join(message.split())
    return Answer(line, {"error": line}, is_error=True)


def _object(tool: str, arguments: object) -> Mapping[str, object]:
    if arguments is None:
        return {}
    if not isinstance(arguments, Mapping):
        raise ToolError(f"{clip(str(tool), 60)}: arguments must be a JSON object")
    return arguments


def _allowed(tool: str, args: Mapping[str, object], keys: set[str]) -> None:
    unknown = sorted(str(k) for k in args if k not in keys)
    if unknown:
        raise ToolError(
            f"{tool}: unknown argument {clip(', '.join(unknown), 80)}; "
            f"expected {', '.join(sorted(keys))}"
        )


def _text(
    tool: str,
    args: Mapping[str, object],
    key: str,
    *,
    required: bool = True,
    limit: int,
    allow_empty: bool = False,
) -> str:
    value = args.get(key)
    if value is None:
        if required:
            raise ToolError(f"{tool}: '{key}' is required")
        return ""
    if not isinstance(value, str):
        raise ToolError(f"{tool}: '{key}' must be a string, not {_json_type(value)}")
    if len(value) > limit:
        raise ToolError(f"{tool}: '{key}' is longer than {limit:,} characters")
    if required and not allow_empty and not value.strip():
        raise ToolError(f"{tool}: '{key}' is empty")
    return value


def _json_type(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__


def _who(author: str) -> str:
    return author.split(" <", 1)[0] if author else "?"


def _event_dict(e: Any) -> dict[str, Any]:
    """The fields an agent needs about one event (the full record is `cairn history`)."""
    return {
        "id": e.id,
        "type": e.type.value,
        "entity": e.entity,
        "date": day(e.when),
        "author": _who(e.author),
        "agent": e.agent or None,
        "reason": e.reasoning,
        "alternative": e.alternative or None,
    }


def _describe(
    row: Listed, conflicts: list[Any], attempts: list[Any], moved: str | None
) -> tuple[str, dict[str, Any]]:
    """One entity's block of `cairn_why`: compact text and the same as JSON (`conflicts`:
    the status's, whole: `Store.events_of`; `moved`: its newest name if it moved away)."""
    status, reviews = row.status, row.status.due_reviews
    lines = [f"{status.entity}: {row.state} ({count_label(status)})"]
    if row.formerly:
        lines.append(f"  formerly {clip(', '.join(row.formerly), 300)}")
    if moved:
        lines.append(f'  moved to {moved}: cairn_why entities=["{moved}"]')
    for v in status.open_verdicts:
        what = v.type.value + (f" of “{clip(v.alternative, 80)}”" if v.alternative else "")
        lines.append(
            f"  {what} {day(v.when)} by {_who(v.author)} {short_id(v.id)}: {clip(v.reasoning, 300)}"
        )
    for c in conflicts:
        lines.append(
            f"  conflict: {c.type.value} {day(c.when)} {short_id(c.id)} re-applied without a "
            f"supersede: {clip(c.reasoning, 200)}"
        )
    for verdict, by in status.reopened.items():
        lines.append(f"  re-opened: {short_id(verdict)} by {short_id(by)}")
    outcomes = Counter(a.outcome for a in attempts if a.outcome != "active")
    attempt_line = ", ".join(f"{n} {o}" for o, n in sorted(outcomes.items()))
    if attempt_line:
        lines.append(f"  prior attempts: {attempt_line}")
    for r in reviews:
        when = f"since {r.due}" if r.due else "now"
        what = f"{short_id(r.event.id)} {clip(r.event.reasoning, 160)}"
        lines.append(f"  review due {when} ({r.reason}): {what}")
    if status.rollup:
        kids = ", ".join(f"{k} {v.value}" for k, v in sorted(status.rollup.items()))
        lines.append(f"  children: {clip(kids, 300)}")
    if status.latest is not None and not status.open_verdicts:
        e = status.latest
        lines.append(
            f"  latest: {e.type.value} {day(e.when)} {short_id(e.id)}: {clip(e.reasoning, 200)}"
        )
    data = {
        "entity": status.entity,
        "status": status.status.value,
        "event_count": status.event_count,
        "decision_count": status.decision_count,
        "note_count": status.note_count,
        "open_verdicts": [_event_dict(v) for v in status.open_verdicts],
        "conflicts": [_event_dict(c) for c in conflicts],
        "reopened": dict(status.reopened),
        "prior_attempts": dict(outcomes),
        "due_reviews": [
            {"id": r.event.id, "reason": r.reason, "due": r.due or None} for r in reviews
        ],
        "children": {k: v.value for k, v in status.rollup.items()},
        "formerly": list(row.formerly),
        "moved_to": moved,
        "file_removed": row.file_removed,
    }
    return "\n".join(lines), data
