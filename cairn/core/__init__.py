"""The application core: the rules the CLI, the language server and the agent tools share.

Every surface is a thin adapter over these modules, so a rule is written once and
the surfaces cannot disagree. Import the submodules directly (this package imports
nothing, so a surface pays only for what it uses):

Project discovery (`cairn.core.project`)
    find_project(start=None) -> Project           # one walk up; CAIRN_DIR wins; ProjectNotFound
    ProjectFinder().for_path(path) -> Project|None  # the same walk, remembered (the server)
    Project(root, cairn_dir).log / .drafts / .queries / .relpath(path)

A project session (`cairn.core.session`), like ruff's `Session`
    with Session.open(project) as session:
        session.status(entity) -> EntityStatus          # rollup + due reviews
        session.statuses(entities) -> {entity: EntityStatus}   # one query + due reviews
        session.card(entity, newest) -> Card(status, newest events)   # a hover card's data
        session.due_reviews(today=None) -> [Review]
        session.record(DecisionRequest, agent=..., author=...) -> AppendResult
        session.append(EventDraft) -> AppendResult
        session.store                                   # the store, for plain reads
                                                        # (history, search, get, ...)

Validating decisions (`cairn.core.decisions`)
    request_from_command("cairn.reject", {...}) -> DecisionRequest | InvalidRequest
    check(DecisionRequest(...)) -> DecisionRequest      # canonical entity, fields per type
    loggable_types()                                    # the store's vocabulary minus redact
    render_draft / parse_draft                          # the markdown draft format

Findings and the gate (`cairn.core.findings`, `cairn.core.gate`)
    findings_for(symbols, statuses, Severities()) -> [Finding]   # the one severity map
    Finding.blocking                                    # the one gate rule
    check(project, [Target(relpath, text, lines)]) -> Report     # what `cairn check` runs
    changed_lines(old, new) -> frozenset[int]

The entity at a position (`cairn.core.position`): hover, which, actions, lenses, show
    at_position(symbols, line, character, history) -> [Symbol]   # best first
    rank(symbols_at_one_place, history) -> [Symbol]     # framework kinds, then history
    has_history(status), history_from(statuses)

Presentation (`cairn.core.present`)
    short_id(id), who(event), by(event), when(event), day(value), clip(text, limit)
    history_markdown(entity, events)
    (the file-size limit, MAX_FILE_BYTES and source_text, is `cairn.limits`: the base)

`cairn.core` imports `cairn.store` and `cairn.indexer`, never `cairn.cli` or
`cairn.lsp`. Store errors (`cairn.store.StoreError`) propagate: each surface says
them its own way (a one-line CLI error, an LSP error response, a tool error).
"""
