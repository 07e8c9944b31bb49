"""Decision requests: validating decisions before they are recorded, and drafts.

Pure code: a command's JSON object (the language server's `cairn.*` commands, the
agent tools) or a saved draft becomes a `DecisionRequest`, or an `InvalidRequest`
whose message says what is wrong and what is valid. Nothing here writes;
`Session.record` turns a complete request into a store append.

The vocabulary is the store's (`cairn.store.model.EventType`), imported when a
request is checked so that merely loading this module (the server does at start-up)
does not load the store.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime, timezone

import msgspec
from msgspec.structs import replace


def loggable_types() -> tuple[str, ...]:
    """Every event type a person or agent may log: the vocabulary minus `redact`
    (a human act with its own command, which names an event rather than an entity)."""
    from cairn.store.model import EventType

    return tuple(t.value for t in EventType if t is not EventType.REDACT)


# command -> (fixed event type or None, allowed keys). Every command takes `key`, an
# idempotency key (the CLI's --key): a retry with it writes nothing.
COMMANDS: dict[str, tuple[str | None, frozenset[str]]] = {
    "cairn.log": (
        None,
        frozenset({"entity", "type", "reason", "alternative", "reverts", "supersedes", "key"}),
    ),
    "cairn.reject": ("reject", frozenset({"entity", "alternative", "reason", "key"})),
    "cairn.revert": ("revert", frozenset({"entity", "reason", "reverts", "key"})),
    "cairn.supersede": ("supersede", frozenset({"entity", "reason", "of", "key"})),
}

DRAFT_COMMENT = (
    "<!-- Cairn decision draft. Write the reasoning below, then save: saving logs the "
    "decision and deletes this file. Close it unsaved to discard. -->"
)
_FRONT_KEYS = ("entity", "type", "alternative", "reverts", "supersedes", "key")


class InvalidRequest(ValueError):
    """Arguments that cannot become a decision; the message is for the user."""


class DecisionRequest(msgspec.Struct, frozen=True):
    """One decision to log; `reason` None means "ask for it in a draft"."""

    entity: str
    type: str
    reason: str | None = None
    alternative: str | None = None
    reverts: str | None = None
    supersedes: str | None = None
    key: str | None = None  # idempotency key: a retry with it writes nothing


class DraftProblem(msgspec.Struct, frozen=True):
    """A mistake in a draft, at a 0-based line, shown as a diagnostic in the draft."""

    line: int
    message: str


def request_from_command(command: str, arguments: object) -> DecisionRequest:
    """Validate `workspace/executeCommand` arguments: exactly one JSON object."""
    spec = COMMANDS.get(command)
    if spec is None:
        raise InvalidRequest(f"unknown command {command!r}")
    fixed_type, allowed = spec
    args = _one_object(command, arguments)
    unknown = sorted(set(args) - allowed)
    if unknown:
        raise InvalidRequest(
            f"{command}: unknown argument {', '.join(unknown)}; "
            f"expected {', '.join(sorted(allowed))}"
        )
    values = {k: _optional_text(command, k, v) for k, v in args.items()}
    entity = values.get("entity")
    if not entity:
        raise InvalidRequest(f"{command}: 'entity' is required, e.g. users.email")
    event_type = fixed_type or values.get("type")
    if not event_type:
        if values.get("reason"):
            raise InvalidRequest(
                f"{command}: 'type' is required; one of {', '.join(loggable_types())}"
            )
        event_type = "modify"  # a draft: the person can change it in the front matter
    request = DecisionRequest(
        entity=entity,
        type=event_type,
        reason=values.get("reason"),
        alternative=values.get("alternative"),
        reverts=values.get("reverts"),
        supersedes=values.get("supersedes") or values.get("of"),
        key=values.get("key"),
    )
    return check(request, command)


def check(request: DecisionRequest, where: str = "decision") -> DecisionRequest:
    """Canonicalise the entity and check the fields the event type needs."""
    from cairn.store.paths import EntityPathError, canonicalise  # the store loads on first use

    try:
        entity = canonicalise(request.entity)
    except EntityPathError as exc:
        raise InvalidRequest(f"{where}: {exc}") from None
    loggable = loggable_types()
    if request.type not in loggable:
        raise InvalidRequest(
            f"{where}: invalid type {request.type!r}; expected one of {', '.join(loggable)}"
        )
    if request.supersedes and request.type != "supersede":
        raise InvalidRequest(f"{where}: 'supersedes' only goes with type supersede")
    if request.reverts and request.type != "revert":
        raise InvalidRequest(f"{where}: 'reverts' only goes with type revert")
    return replace(request, entity=entity)


def _one_object(command: str, arguments: object) -> Mapping[str, object]:
    if isinstance(arguments, Mapping):
        return arguments
    if isinstance(arguments, (list, tuple)) and len(arguments) == 1:
        only = arguments[0]
        if isinstance(only, Mapping):
            return only
    raise InvalidRequest(
        f"{command}: expected one JSON object argument such as "
        '{"entity": "users.email", "reason": "..."}'
    )


def _optional_text(command: str, key: str, value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidRequest(f"{command}: {key!r} must be a string, not {type(value).__name__}")
    text = value.strip()
    return text or None


# --- drafts ----------------------------------------------------------------------------


def draft_name(request: DecisionRequest, now: datetime | None = None) -> str:
    """A readable, unique-enough file name: `<entity>-<type>-<timestamp>.md`."""
    stamp = (now or datetime.now(timezone.utc)).strftime("%Y%m%dT%H%M%S%f")
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", request.entity).strip("_")[:60] or "entity"
    return f"{slug}-{request.type}-{stamp}.md"


def render_draft(request: DecisionRequest, context: str = "") -> str:
    """The markdown a person fills in: front matter, a comment, an optional context quote."""
    lines = ["---"]
    for key in _FRONT_KEYS:
        value = getattr(request, key)
        if (
            value
            or key in ("entity", "type")
            or (key == "alternative" and request.type == "reject")
        ):
            lines.append(f"{key}: {value or ''}")
    lines += ["---", "", DRAFT_COMMENT, ""]
    if context:
        lines += [f"> {line}" if line else ">" for line in context.splitlines()] + [""]
    lines.append(request.reason or "")
    return "\n".join(lines) + "\n"


def parse_draft(text: str) -> tuple[DecisionRequest | None, list[DraftProblem]]:
    """A saved draft -> a complete request, or the problems to show in the draft."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return None, [DraftProblem(0, "a draft starts with a '---' front-matter line")]
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        return None, [DraftProblem(0, "the front matter is not closed with a '---' line")]
    fields: dict[str, str] = {}
    where: dict[str, int] = {}
    problems: list[DraftProblem] = []
    for number in range(1, end):
        line = lines[number]
        if not line.strip():
            continue
        key, sep, value = line.partition(":")
        key = key.strip()
        if not sep or key not in _FRONT_KEYS:
            valid = ", ".join(_FRONT_KEYS)
            problems.append(DraftProblem(number, f"unknown front-matter line; keys are {valid}"))
            continue
        fields[key] = value.strip()
        where[key] = number
    reason = _body(lines[end + 1 :])
    if not reason:
        problems.append(DraftProblem(end + 1, "write the reasoning below the front matter"))
    if problems:
        return None, problems
    request = DecisionRequest(
        entity=fields.get("entity", ""),
        type=fields.get("type", ""),
        reason=reason,
        alternative=fields.get("alternative") or None,
        reverts=fields.get("reverts") or None,
        supersedes=fields.get("supersedes") or None,
        key=fields.get("key") or None,
    )
    if not request.entity:
        return None, [DraftProblem(where.get("entity", 0), "'entity' is required")]
    try:
        return check(request, "draft"), []
    except InvalidRequest as exc:
        message = str(exc).removeprefix("draft: ")
        key = _blame(message)
        return None, [DraftProblem(where.get(key, 0), message)]


def _body(lines: list[str]) -> str:
    """The reasoning: the body without HTML comments and quoted context."""
    text = re.sub(r"<!--.*?-->", "", "\n".join(lines), flags=re.S)
    kept = [line for line in text.splitlines() if not line.lstrip().startswith(">")]
    return "\n".join(kept).strip()


def _blame(message: str) -> str:
    for key in ("alternative", "supersedes", "reverts", "type"):
        if key in message:
            return key
    return "entity"
