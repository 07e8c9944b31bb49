"""Framework resolvers: the semantics a query alone cannot express.

A pattern with `(#set! resolver "<name>")` hands each of its captures to
`RESOLVERS[name](capture, context)`, which returns the captures to keep (adjusted,
multiplied, or none). One small module per framework.
"""

from __future__ import annotations

from collections.abc import Callable

from tree_sitter import Node

from cairn.indexer.capture import Capture, FileContext
from cairn.indexer.frameworks import (
    alembic,
    django,
    environment,
    flask,
    jpa,
    knex,
    pep508,
    precommit,
    rails,
    routers,
    spring,
    sqlalchemy,
)

Resolver = Callable[[Capture, FileContext], list[Capture]]

# Per language: the file-wide context resolvers read across top-level statements, as
# bytes; the indexer makes it part of every chunk's cache key.
CONTEXTS: dict[str, Callable[[Node, FileContext], bytes]] = {"python": routers.context}

RESOLVERS: dict[str, Resolver] = {
    "alembic-alter": alembic.alter_column,
    "alembic-batch": alembic.batch,
    "axum": routers.axum,
    "django": django.field,
    "django-migration": django.migration,
    "django-table": django.meta_table,
    "env-assignment": environment.assignment,
    "flask": flask.route,
    "jpa": jpa.column,
    "jpa-table": jpa.table,
    "knex": knex.columns,
    "leading-slash": routers.leading_slash,
    "method-in-path": routers.method_in_path,
    "pep508": pep508.requirement,
    "pre-commit": precommit.repository,
    "rails-reference": rails.reference,
    "rails-table": rails.table_column,
    "router-prefix": routers.prefixed,
    "spring": spring.route,
    "sqlalchemy": sqlalchemy.column,
}
