"""The decision-log commands: init, log (and reject/revert/supersede), status, history,
prior-attempts, search, review."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

import click

from cairn.cli._common import (
    CairnError,
    current_project,
    emit_json,
    json_option,
    key_option,
    warn_if_damaged,
)
from cairn.core.commits import commits_of, linked_commit
from cairn.core.present import (
    count_label,
    logged,
    more_entities,
    no_decisions_hint,
    short_id,
    who,
)
from cairn.core.session import Session, did_you_mean
from cairn.store import (
    AmbiguousTarget,
    Attempt,
    EntityStatus,
    Event,
    EventDraft,
    Review,
    Status,
    Store,
    StoreError,
    init_store,
)
from cairn.store.paths import EntityPathError
from cairn.store.review import EXPIRES_GRAMMAR
from cairn.store.times import parse_date
from cairn.terminal import for_terminal

STATUS_STYLE = {
    Status.ACTIVE: "green",
    Status.REVERTED: "red",
    Status.REJECTED: "red",
    Status.CONFLICT: "bold red",
    Status.REOPENED: "yellow",
    Status.REMOVED: "dim",
    Status.UNKNOWN: "dim",
}


@contextmanager
def open_session() -> Iterator[Session]:
    """The current project's session; store errors become one-line CLI errors."""
    project = current_project()
    try:
        with Session.open(project, few=True) as session:  # one command: a few questions
            if session.store.degraded:
                warn_if_damaged(f"answering without the index: {session.store.degraded}")
            warn_if_damaged(session.damage())
            yield session
    except AmbiguousTarget as exc:
        raise CairnError(str(exc)) from None
    except (StoreError, EntityPathError) as exc:
        raise CairnError(str(exc)) from None


@contextmanager
def open_store() -> Iterator[Store]:
    """The current project's store (through its session), for plain reads."""
    with open_session() as session:
        yield session.store


def _console() -> Any:
    from rich.console import Console

    # rich decides colour from the stream: none when piped or captured.
    return Console(highlight=False, soft_wrap=True)


def esc(text: str) -> str:
    """Stored text for the terminal: never rich markup (`[brackets]` stay as typed), no
    control or bidi characters, continuation lines indented (see cairn.terminal)."""
    from rich.markup import escape

    return escape(for_terminal(text))


def body(value: str, indent: str = "    ") -> str:
    """User text, escaped, with its continuation lines indented under the entry."""
    from rich.markup import escape

    return escape(for_terminal(value, indent))


def _who(event: Event) -> str:
    return who(event) or "?"


def _short(event_id: str) -> str:
    return short_id(event_id)


def _day(ts: str) -> str:
    return ts[:10] if ts else ""


# --- writing ----------------------------------------------------------------------------


def _write_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    options = [
        click.option(
            "--author", default="", help="Who decided (default: CAIRN_AUTHOR, git user, $USER)."
        ),
        click.option("--agent", default="", help="The coding agent that wrote it, if any."),
        click.option("--session", default="", help="An agent or editor session id."),
        click.option(
            "--commit", "commit_", default="", help="The commit this decision belongs to."
        ),
        click.option("--diff", default="", help="The change itself (a short diff)."),
        click.option(
            "--occurred-at", default="", help="When it happened (YYYY-MM-DD or ISO time)."
        ),
        click.option(
            "--revisit-after", default="", help="Review date: YYYY-MM-DD or 30d, 2w, 6m, 1y."
        ),
        click.option("--expires-when", default="", help=f"Expiry trigger: {EXPIRES_GRAMMAR}."),
        click.option("--stale-when", default="", help="Free text: when this stops holding."),
        click.option(
            "--kind",
            "entity_kind",
            default="",
            help="Entity kind, when the path cannot say (function, class, method).",
        ),
        key_option,
        json_option,
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def _append(draft: EventDraft, as_json: bool) -> None:
    with open_session() as session:
        result = session.append(draft)
    event = result.event
    if result.masked:
        click.echo(
            "cairn: warning: masked secrets before writing: " + ", ".join(result.masked), err=True
        )
    for warning in result.warnings:
        click.echo(f"cairn: warning: {warning}", err=True)
    today = datetime.now(timezone.utc).date().isoformat()  # the day `cairn review` uses
    if event.revisit_after and event.revisit_after[:10] <= today:
        click.echo(
            f"cairn: warning: --revisit-after {event.revisit_after[:10]} is already due; "
            "`cairn review` lists it from today",
            err=True,
        )
    if as_json:
        emit_json({**event.to_dict(), "masked": result.masked, "replayed": result.replayed})
        return
    console = _console()
    done, links = logged(event, result.replayed, sep="  ")
    line = f"{done} [bold]{event.type.value}[/] on [cyan]{esc(event.entity)}[/]  {_short(event.id)}"
    line += links
    if result.replayed:
        line += f"  (key {esc(draft.key.strip())}: nothing written)"
    console.print(line)


def _draft(type_: str, entity: str, reason: str, **kw: Any) -> EventDraft:
    return EventDraft(
        type=type_,
        entity=entity,
        reasoning=reason,
        alternative=kw.get("alternative", ""),
        supersedes=kw.get("supersedes", ""),
        reverts=kw.get("reverts", ""),
        author=kw["author"],
        agent=kw["agent"],
        session=kw["session"],
        commit=kw["commit_"],
        diff=kw["diff"],
        occurred_at=kw["occurred_at"],
        revisit_after=kw["revisit_after"],
        expires_when=kw["expires_when"],
        stale_when=kw["stale_when"],
        entity_kind=kw["entity_kind"],
        key=kw["key"],
    )


def _reason(given: str | None, entity: str, type_: str) -> str:
    """The -r text, or a reason written in the editor on a template (as `git commit`)."""
    if given is not None:
        return given
    from cairn.cli.reason_editor import ask_reason
    from cairn.core.present import clip

    with open_store() as store:
        st = store.status(entity)
    context = [f"status: {st.status.value} ({count_label(st)})"]
    if st.open_verdicts:
        context.append("open verdicts:")
        context += [
            f"  {v.type.value} {_day(v.when)} {_short(v.id)} by {_who(v)}: "
            + clip(v.reasoning, 100)
            for v in st.open_verdicts
        ]
    return ask_reason(st.entity, type_, context)


@click.command("log")
@click.argument("entity")
@click.argument("type_", metavar="TYPE")
@click.option("-r", "--reason", help="Why: the reasoning (without -r: written in $EDITOR).")
@click.option(
    "--alternative", default="", help="For reject: names the rejected approach (optional)."
)
@click.option("--reverts", default="", help="Id (or prefix) of the applied change a revert undoes.")
@click.option(
    "--supersedes", default="", help="Id (or prefix) of the verdict a supersede re-opens."
)
@_write_options
def log_cmd(entity: str, type_: str, reason: str | None, as_json: bool, **kw: Any) -> None:
    """Record a decision: TYPE is add, create, modify, retype, rename, migrate, index_add,
    remove, delete, index_remove, revert, reject or supersede.

    Example: cairn log users.email add -r "login needs a unique email"
    """
    if type_.strip().lower() == "annotate":
        raise CairnError("a note on an event is written with `cairn annotate ID -r TEXT`")
    _append(_draft(type_, entity, _reason(reason, entity, type_), **kw), as_json)


@click.command("reject")
@click.argument("entity")
@click.option(
    "--alternative",
    default="",
    help="Names the rejected approach when ENTITY alone does not say it (optional).",
)
@click.option("-r", "--reason", help="Why it was rejected (without -r: written in $EDITOR).")
@_write_options
def reject_cmd(entity: str, alternative: str, reason: str | None, as_json: bool, **kw: Any) -> None:
    """Record that ENTITY was considered and rejected: ENTITY is what was rejected, and
    `cairn check` blocks a change that introduces it until a supersede re-opens it.

    \b
    cairn reject deps/celery -r "we don't want to run a broker; RQ on our Redis is enough"
    cairn reject users.email_verified --alternative "a nullable flag" -r "breaks SSO signup"
    """
    why = _reason(reason, entity, "reject")
    _append(_draft("reject", entity, why, alternative=alternative, **kw), as_json)


@click.command("revert")
@click.argument("entity")
@click.option("-r", "--reason", help="Why the change was undone (without -r: written in $EDITOR).")
@click.option(
    "--reverts", default="", help="Id (or prefix) of the change undone (default: none named)."
)
@_write_options
def revert_cmd(entity: str, reason: str | None, reverts: str, as_json: bool, **kw: Any) -> None:
    """Record that an applied change was undone because it was wrong.

    Example: cairn revert users.email_verified -r "broke the signup flow"
    """
    why = _reason(reason, entity, "revert")
    _append(_draft("revert", entity, why, reverts=reverts, **kw), as_json)


@click.command("supersede")
@click.argument("entity")
@click.option(
    "-r", "--reason", help="Why the verdict no longer holds (without -r: written in $EDITOR)."
)
@click.option(
    "--of", "of", default="", help="Id (or prefix) of the verdict; default: the only open one."
)
@_write_options
def supersede_cmd(entity: str, reason: str | None, of: str, as_json: bool, **kw: Any) -> None:
    """Re-open a revert or reject on ENTITY (the only open one, or the one named by --of).

    Example: cairn supersede users.email_verified -r "signup flow fixed in #412"
    """
    why = _reason(reason, entity, "supersede")
    _append(_draft("supersede", entity, why, supersedes=of, **kw), as_json)


@click.command("init")
@click.argument("path", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--nested",
    is_flag=True,
    help="Create a log inside an existing project (its history then stops applying here).",
)
def init_cmd(path: Path | None, nested: bool) -> None:
    """Create .cairn/ (the decision log) at PATH, default the current directory."""
    root = (path or Path.cwd()).resolve()
    if not root.is_dir():
        raise CairnError(f"{root} is not a directory")
    existed = (root / ".cairn" / "decisions.jsonl").exists()
    outer = _enclosing_project(root)
    if outer is not None and not existed and not nested:
        raise CairnError(
            f"{root} is inside the Cairn project at {outer}; a second log here would hide "
            f"its history from everything below {root}. Record decisions in {outer}/.cairn, "
            "or pass --nested if this folder really is a separate project"
        )
    try:
        cairn_dir = init_store(root)
    except StoreError as exc:
        raise CairnError(str(exc)) from None
    except OSError as exc:
        raise CairnError(f"cannot create {root / '.cairn'}: {exc.strerror or exc}") from None
    if existed:
        click.echo(
            f"{cairn_dir} already exists; left as it was (checked .gitignore and .gitattributes)"
        )
    else:
        click.echo(
            f"created {cairn_dir} (commit decisions.jsonl and .gitattributes; the index is ignored)"
        )


def _enclosing_project(root: Path) -> Path | None:
    """The root of a project strictly above `root`, if any."""
    for directory in root.parents:
        if (directory / ".cairn").is_dir():
            return directory
    return None


# --- reading ----------------------------------------------------------------------------


def _verdict_line(e: Event, commit: str = "") -> str:
    what = f"{e.type.value}"
    if e.alternative:
        what += f" of “{e.alternative}”"
    name = esc(_who(e))
    return (
        f"  [red]{esc(what)}[/] {_day(e.when)} {_short(e.id)} by {name}{_in_commit(commit)}: "
        f"{body(e.reasoning)}"
    )


def _in_commit(commit: str | None) -> str:
    """` in commit 862741c8792d` (the commit that landed an event), or nothing."""
    return f" in commit {_short(commit)}" if commit else ""


def _print_status(
    st: EntityStatus,
    conflicts: list[Event],
    commits: dict[str, str] | None = None,
    latest: Event | None = None,
    state: str = "",
) -> None:
    """`cairn status`: `conflicts` are `st.conflicts` whole (`Store.events_of`);
    `commits` the commit that landed each event (`commits_of`); `latest` the newest
    decision (default `st.latest`); `state` the status word as `cairn ls` says it
    (`reverted · file removed`, `Listed.state`)."""
    commits = commits or {}
    latest = latest or st.latest
    console = _console()
    style = STATUS_STYLE.get(st.status, "")
    console.print(
        f"[cyan]{esc(st.entity)}[/]  [{style}]{esc(state or st.status.value)}[/]  "
        f"({esc(count_label(st))})"
    )
    if st.formerly:  # its decisions include those taken under these names
        console.print("formerly " + ", ".join(f"[cyan]{esc(f)}[/]" for f in st.formerly))
    if st.open_verdicts:
        console.print("open verdicts:")
        for v in st.open_verdicts:
            console.print(_verdict_line(v, commits.get(v.id, "")))
    if conflicts:
        console.print("re-applied without a supersede:")
        for c in conflicts:
            console.print(
                f"  [yellow]{c.type.value}[/] {_day(c.when)} {_short(c.id)}: {body(c.reasoning)}"
            )
    for verdict, by in st.reopened.items():
        console.print(f"  re-opened: {_short(verdict)} by {_short(by)}")
    if latest is not None:
        e = latest
        console.print(
            f"latest: {e.type.value} {_day(e.when)} {_short(e.id)}"
            f"{_in_commit(commits.get(e.id))}: {body(e.reasoning)}"
        )
    for review in st.due_reviews:
        e = review.event
        since = f" since {review.due}" if review.due else ""
        why = review.detail or e.reasoning
        console.print(f"[yellow]review due[/]{since}: {_short(e.id)} {body(why)}")
    if st.rollup:
        console.print("children with verdicts:")
        for child, status in sorted(st.rollup.items()):
            console.print(
                f"  [cyan]{esc(child)}[/] [{STATUS_STYLE.get(status, '')}]{status.value}[/]"
            )


def _readable(entity: str) -> None:
    """A read's ENTITY must be an entity path (or a bare root such as `deps/`); a listing
    attempt such as `.` is pointed at `cairn ls`."""
    from cairn.store.paths import canonicalise

    if entity.strip() in ("deps/", "env/", "route/"):
        return
    try:
        canonicalise(entity)
    except EntityPathError as exc:
        raise CairnError(f"{exc}; `cairn ls` lists the entities that have decisions") from None


def _did_you_mean(store: Store, entity: str) -> list[str]:
    """For an entity the log does not know: close paths from the log and the code, also
    told on stderr (exit stays 0: an unknown entity is an answer, not an error)."""
    found = did_you_mean(store, entity)
    hint = no_decisions_hint(entity, found)

    def tell() -> None:  # after the answer itself, as a footnote to it
        sys.stdout.flush()
        click.echo(f"cairn: {hint}", err=True)

    click.get_current_context().call_on_close(tell)
    return found


@click.command("status")
@click.argument("entity")
@json_option
def status_cmd(entity: str, as_json: bool) -> None:
    """Derived status of ENTITY (active reverted rejected reopened removed conflict unknown),
    with the reviews of its decisions that are due."""
    from cairn.core.listing import Listed, file_removed, moved_to

    _readable(entity)
    with open_session() as session:
        st = session.status(entity)
        conflicts = session.store.events_of(st.conflicts)
        unknown = st.event_count == 0 and not st.rollup
        suggestions = _did_you_mean(session.store, entity) if unknown else []
        events = session.history(entity) if st.event_count else []
        commits = commits_of(events)
        # A commit link is no decision: the latest shown is the newest event that is not one.
        latest = next((e for e in reversed(events) if not linked_commit(e)), st.latest)
        now = moved_to(session, st.entity)  # `cairn.core.listing`, as MCP `cairn_why` says
        gone = now is None and bool(st.event_count) and file_removed(session, st.entity)
    if as_json:
        emit_json(
            {
                **st.to_dict(),
                "commits": commits,
                "did_you_mean": suggestions,
                "moved_to": now,
                "file_removed": gone,
            }
        )
    else:
        state = Listed(st.entity, st, tuple(st.formerly), gone).state
        _print_status(st, conflicts, commits, latest, state)
        if now:  # what was decided here is listed there (`cairn.core.listing`)
            _console().print(f"moved to [cyan]{esc(now)}[/]: `cairn status {esc(now)}`")


@click.command("history")
@click.argument("entity")
@click.option(
    "--as-of", default=None, help="Only what had been recorded by this date (YYYY-MM-DD or ISO)."
)
@click.option("--children", is_flag=True, help="Include entities below ENTITY (a table's columns).")
@json_option
def history_cmd(entity: str, as_of: str | None, children: bool, as_json: bool) -> None:
    """Every decision on ENTITY, oldest first (by recorded time)."""
    _readable(entity)
    with open_session() as session:
        events = session.history(entity, as_of=as_of, include_children=children)
        if not events and not as_of and not session.history(entity, include_children=True):
            _did_you_mean(session.store, entity)
        formerly = [] if as_json else [f.path for f in session.formerly(entity)]
    if as_json:
        emit_json([e.to_dict() for e in events])
        return
    console = _console()
    if not events:
        console.print(
            f"no decisions recorded on {esc(entity)}" + (f" as of {as_of}" if as_of else "")
        )
        return
    from cairn.core.present import annotated_id, split_notes

    if formerly:  # the events of its former paths are shown with the path they were on
        console.print("formerly " + ", ".join(f"[cyan]{esc(f)}[/]" for f in formerly))
    plain, notes = split_notes(events)
    commits = commits_of(events)
    for e in plain:
        when = _day(e.recorded_at)
        if e.occurred_at and _day(e.occurred_at) != when:
            when += f" (occurred {_day(e.occurred_at)})"
        links = ""
        if e.supersedes:
            links += f" re-opens {_short(e.supersedes)}"
        if e.reverts:
            links += f" reverts {_short(e.reverts)}"
        if annotated_id(e):
            links += f" annotates {_short(annotated_id(e))}"
        links += _in_commit(commits.get(e.id))
        how = e.metadata.get("found_by") if isinstance(e.metadata, dict) else None
        if how:  # how an imported revert was recognised
            share = e.metadata.get("share")
            links += f" (found by {how}" + (f", {share})" if share else ")")
        style = "red" if e.type.is_verdict else "yellow" if e.type.value == "supersede" else "bold"
        console.print(
            f"{when}  [{style}]{e.type.value}[/]  [cyan]{esc(e.entity)}[/]  {_short(e.id)}"
            f"  {esc(_who(e))}{links}"
        )
        if e.alternative:
            console.print(f"    alternative: {esc(e.alternative)}")
        console.print(f"    {body(e.reasoning) if not e.redacted else '[dim](redacted)[/]'}")
        for n in notes.get(e.id, ()):
            if linked_commit(n):
                continue  # shown as the event's commit
            name = esc(_who(n))
            console.print(
                f"    [yellow]note[/] {_day(n.recorded_at)} {_short(n.id)} by {name}: "
                + body(n.reasoning if not n.redacted else "(redacted)", " " * 6)
            )


def _attempt_line(a: Attempt) -> str:
    if a.change is None:
        assert a.closed_by is not None
        c = a.closed_by
        label = (
            f"alternative “{a.alternative}”" if a.alternative else "revert of an unlogged change"
        )
        line = f"[red]{a.outcome}[/] {_day(c.when)} {esc(label)}: {body(c.reasoning)}"
        line += f" ({_short(c.id)})"
        if a.reopened_by:
            line += f"\n    re-opened by {_short(a.reopened_by)}"
        return line
    ch = a.change
    line = f"[bold]{a.outcome}[/] {_day(ch.when)} {ch.type.value}: {body(ch.reasoning)}"
    line += f" ({_short(ch.id)})"
    if a.closed_by is not None:
        cb = a.closed_by
        line += f"\n    closed by {cb.type.value} {_day(cb.when)} ({a.confidence}): " + body(
            cb.reasoning, " " * 8
        )
    if a.reopened_by:
        line += f"\n    re-opened by {_short(a.reopened_by)}"
    return line


@click.command("prior-attempts")
@click.argument("entity")
@click.option("--all", "include_all", is_flag=True, help="Also list changes that are still active.")
@click.option("--children", is_flag=True, help="Include entities below ENTITY.")
@json_option
def prior_attempts_cmd(entity: str, include_all: bool, children: bool, as_json: bool) -> None:
    """What was tried on ENTITY before: reverted, removed, rejected, re-opened attempts."""
    _readable(entity)
    with open_store() as store:
        attempts = store.prior_attempts(
            entity, include_children=children, include_active=include_all
        )
        if not attempts and not store.history(entity, include_children=True):
            _did_you_mean(store, entity)
    if as_json:
        emit_json([a.to_dict() for a in attempts])
        return
    console = _console()
    if not attempts:
        console.print(f"no prior attempts on {esc(entity)}")
        return
    for a in attempts:
        prefix = f"[cyan]{esc(a.entity)}[/] " if children else ""
        console.print(prefix + _attempt_line(a))


@click.command("search")
@click.argument("query", nargs=-1, required=True)
@click.option("--limit", default=20, show_default=True, type=click.IntRange(1, 1000))
@json_option
def search_cmd(query: tuple[str, ...], limit: int, as_json: bool) -> None:
    """Search decisions with a question or keywords, best first (docs/search.md).

    Ranks by the meaningful words of QUERY over each decision's reasoning, alternative,
    commit subjects and entity path; "quoted phrases" must match whole; word* is a prefix.
    """
    text = " ".join(query)
    if not any(ch.isalnum() for ch in text):
        raise CairnError(
            f"search query {text!r} has no words to look for; to list everything, use `cairn ls`"
        )
    from cairn.core.listing import named_line

    with open_session() as session:
        hits = session.store.search(text, limit=limit)
        # an event on a path that moved is named by its new name, as `cairn ls` lists it
        names = {h.event.entity: named_line(session, h.event.entity) for h in hits}
    if as_json:
        emit_json(
            [
                h.to_dict() | {"named": names[h.event.entity][0], "note": names[h.event.entity][1]}
                for h in hits
            ]
        )
        return
    console = _console()
    if not hits:
        console.print(f"no decisions match {esc(repr(text))}")
        return
    for h in hits:
        e = h.event
        extra = f" (alternative: {e.alternative})" if e.alternative else ""
        console.print(
            f"[cyan]{esc(names[e.entity][2])}[/]{esc(more_entities(h))} {e.type.value} "
            f"{_day(e.when)} {_short(e.id)}: " + body(e.reasoning + extra)
        )


@click.command("review")
@click.option("--today", default=None, help="Pretend today is this date (YYYY-MM-DD).")
@json_option
def review_cmd(today: str | None, as_json: bool) -> None:
    """Decisions due for review (revisit_after passed, expires_when triggered). Exit 1 if any."""
    day: date | None = None
    if today:
        try:
            day = date.fromisoformat(parse_date(today, field="--today"))
        except StoreError as exc:
            raise CairnError(str(exc)) from None
    with open_session() as session:
        due: list[Review] = session.due_reviews(today=day)
    if as_json:
        emit_json([r.to_dict() for r in due])
    else:
        console = _console()
        if not due:
            console.print("nothing is due for review")
        for r in due:
            e = r.event
            why = (
                f"revisit after {r.due}"
                if r.reason == "revisit_after"
                else f"{r.detail} (since {r.due})"
            )
            console.print(
                f"[cyan]{esc(e.entity)}[/] {e.type.value} {_short(e.id)}: {body(e.reasoning)}"
                f"\n    due: {why}"
            )
    if due:
        raise click.exceptions.Exit(1)


def register(group: click.Group) -> None:
    """Add this module's commands to the root group."""
    for command in (
        init_cmd,
        log_cmd,
        reject_cmd,
        revert_cmd,
        supersede_cmd,
        status_cmd,
        history_cmd,
        prior_attempts_cmd,
        search_cmd,
        review_cmd,
    ):
        group.add_command(command)
