"""Half-typed code in every language: indexing never raises and stays sorted."""

from __future__ import annotations

import os

from hypothesis import given, settings
from hypothesis import strategies as st
from indexer_helpers import assert_consistent

from cairn.indexer import Document, index_text

# Realistic sources from the other tests, one per language and framework.
SAMPLES: dict[str, str] = {}


def _load() -> None:
    import test_indexer_go_rust_java as g
    import test_indexer_javascript as j
    import test_indexer_manifests as m
    import test_indexer_python as p
    import test_indexer_ruby as r
    import test_indexer_sql as s

    SAMPLES.update(
        {
            "db/001.sql": s.MIGRATION,
            "shop/models.py": p.SQLALCHEMY + p.DJANGO + p.ALEMBIC + p.ROUTES + p.PREFIXED,
            "src/server.ts": j.SERVER + j.KNEX + j.SEQUELIZE,
            "src/server.js": j.SERVER + j.KNEX,
            "cmd/server.go": g.GO + g.GO_ROUTES.replace("package api", ""),
            "src/lib.rs": g.RUST + g.AXUM,
            "src/User.java": g.JAVA + g.SPRING,
            "db/migrate/001.rb": r.MIGRATION,
            "config/routes.rb": r.ROUTES,
            "shop/urls.py": p.URLS,
            "pyproject.toml": m.PYPROJECT,
            "Cargo.toml": m.CARGO,
            "package.json": m.PACKAGE_JSON,
            "requirements.txt": m.REQUIREMENTS,
            "go.mod": m.GO_MOD,
            "docker-compose.yml": m.COMPOSE,
        }
    )


_load()


@settings(max_examples=int(os.environ.get("CAIRN_FUZZ", "150")), deadline=None)
@given(
    st.sampled_from(sorted(SAMPLES)),
    st.lists(
        st.tuples(
            st.floats(0, 1),
            st.integers(0, 40),
            st.sampled_from(["", "(", "'", "\x00", "é", "\n", "{", "do", "end"]),
        ),
        max_size=5,
    ),
)
def test_mangled_sources_never_raise(path: str, cuts: list[tuple[float, int, str]]) -> None:
    text = SAMPLES[path]
    for where, length, insert in cuts:
        start = int(where * len(text))
        text = text[:start] + insert + text[start + length :]
    symbols = index_text(text, path)
    assert symbols == sorted(symbols, key=lambda s: (s.name_range, s.range, s.entity, s.role.value))
    assert all(s.file == path for s in symbols)
    doc = Document(path, SAMPLES[path])
    doc.replace(text)
    assert doc.symbols == symbols


@given(st.binary(max_size=300), st.sampled_from(sorted(SAMPLES)))
@settings(max_examples=100, deadline=None)
def test_random_bytes_never_raise(data: bytes, path: str) -> None:
    assert isinstance(index_text(data, path), list)


@settings(max_examples=int(os.environ.get("CAIRN_FUZZ", "100")), deadline=None)
@given(
    st.sampled_from(sorted(SAMPLES)),
    st.lists(
        st.tuples(
            st.floats(0, 1),
            st.integers(0, 12),
            st.sampled_from(["", "x", "(", "\n", "é", "🔑", "{", "}", " end\n", "def f\n"]),
        ),
        min_size=1,
        max_size=6,
    ),
)
def test_incremental_edits_in_every_language_match_a_fresh_index(
    path: str, edits: list[tuple[float, int, str]]
) -> None:
    text = SAMPLES[path]
    doc = Document(path, text)
    assert doc.symbols == index_text(text, path)
    for where, length, insert in edits:
        start = int(where * len(text))
        end = min(len(text), start + length)
        before = text[:start]
        line = before.count("\n")
        character = len(before[before.rfind("\n") + 1 :].encode("utf-16-le")) // 2
        middle = text[:end]
        end_line = middle.count("\n")
        end_character = len(middle[middle.rfind("\n") + 1 :].encode("utf-16-le")) // 2
        doc.edit(line, character, end_line, end_character, insert)
        text = text[:start] + insert + text[end:]
        assert_consistent(doc, text, path)
