"""A file runs only the query patterns that apply to its name (`#set! files`).

The narrowed query is cut from the query's own text; these tests hold it to the whole
query: same patterns, same settings, same symbols on real manifests and sources.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import test_indexer_manifests as manifests
import test_indexer_python as python_samples
import test_indexer_ruby as ruby_samples
import test_indexer_versions as versions

from cairn.indexer import Document, queries
from cairn.indexer.capture import FileContext
from cairn.indexer.extract import extract
from cairn.indexer.languages import GRAMMARS, language_for
from cairn.indexer.queries import WALKS, builtin_query, user_query

# the languages that ship a query (SQL's rules are a walk: `queries.WALKS`)
QUERIED = sorted(set(GRAMMARS) - set(WALKS))

# file names (what `for_file` is given), one or more per `#set! files` glob
NAMES = [
    "app.py",
    "urls.py",
    "pyproject.toml",
    "Cargo.toml",
    "Pipfile",
    "poetry.lock",
    "settings.toml",
    "package.json",
    "tsconfig.json",
    "Gemfile",
    "routes.rb",
    "user.rb",
    ".pre-commit-config.yaml",
    "docker-compose.yml",
]


def _samples() -> list[tuple[str, str]]:
    found = [(path, text) for path, text, _ in versions.CASES]
    found += [
        ("pyproject.toml", manifests.PYPROJECT),
        ("engine/Cargo.toml", manifests.CARGO),
        ("web/package.json", manifests.PACKAGE_JSON),
        ("deploy/docker-compose.yml", manifests.COMPOSE),
        ("shop/urls.py", python_samples.URLS),
        ("config/routes.rb", ruby_samples.ROUTES),
    ]
    # the line formats (requirements, go.mod, Dockerfile) run no query
    return [(path, text) for path, text in found if language_for(path) in GRAMMARS]


@pytest.mark.parametrize("language", QUERIED)
def test_a_narrowed_query_keeps_exactly_the_patterns_that_apply(language: str) -> None:
    whole = builtin_query(language)
    assert whole is not None  # every language in QUERIED ships a query
    for name in NAMES:
        keep = [
            i
            for i, props in enumerate(whole.settings)
            if not props.get("files") or _matches(props, name)
        ]
        narrowed = whole.for_file(name)
        if not keep:
            assert narrowed is None
            continue
        assert narrowed is not None
        assert narrowed.query.pattern_count == len(keep)
        assert narrowed.settings == tuple(whole.settings[i] for i in keep)
        assert narrowed.primaries == tuple(whole.primaries[i] for i in keep)
        assert narrowed.builtin and narrowed.sees_comments == whole.sees_comments
        assert whole.for_file(name) is narrowed  # compiled once, kept


def _matches(props: dict[str, str | None], name: str) -> bool:
    from fnmatch import fnmatchcase

    return any(fnmatchcase(name, g) for g in (props["files"] or "").split())


def test_files_limited_patterns_leave_other_files_queries() -> None:
    yaml = builtin_query("yaml")
    toml = builtin_query("toml")
    assert yaml is not None and toml is not None
    compose = yaml.for_file("docker-compose.yml")
    assert compose is not None and compose.query.pattern_count == yaml.query.pattern_count - 1
    assert yaml.for_file(".pre-commit-config.yaml") is yaml  # every pattern applies
    assert toml.for_file("settings.toml") is None


@pytest.mark.parametrize(("path", "text"), _samples(), ids=[p for p, _ in _samples()])
def test_narrowed_and_whole_queries_find_the_same_symbols(path: str, text: str) -> None:
    doc = Document(path, text)
    language = language_for(path)
    assert language is not None
    whole = builtin_query(language)
    assert whole is not None and doc._tree is not None
    ctx = FileContext(doc.file, language, doc._data)
    expected = extract(doc._tree, ctx, doc._lines, [whole], None)
    assert expected, f"the sample {path} should hold symbols"
    assert doc.symbols == expected


def test_user_queries_are_narrowed_too(tmp_path: Path) -> None:
    (tmp_path / "yaml.scm").write_text(
        "((block_mapping_pair key: (flow_node) @_k value: (flow_node) @env.reference)\n"
        '  (#eq? @_k "secret") (#set! files "deploy.yaml"))\n'
        "((block_mapping_pair key: (flow_node) @_k value: (flow_node) @env.reference)\n"
        '  (#eq? @_k "token"))\n',
        "utf-8",
    )
    user = user_query("yaml", tmp_path)
    assert user is not None and not user.builtin
    other = user.for_file("other.yaml")
    assert other is not None and other.query.pattern_count == 1 and not other.builtin
    text = "secret: DB_PASSWORD\ntoken: API_TOKEN\n"
    assert [s.entity for s in Document("deploy.yaml", text, tmp_path).symbols] == [
        "env/DB_PASSWORD",
        "env/API_TOKEN",
    ]
    assert [s.entity for s in Document("other.yaml", text, tmp_path).symbols] == ["env/API_TOKEN"]


def test_a_query_whose_text_cannot_be_cut_is_used_whole() -> None:
    yaml = builtin_query("yaml")
    assert yaml is not None
    broken = replace(yaml, text="((block_mapping", _narrowed={}, _by_name={})
    assert broken.for_file("docker-compose.yml") is broken  # its matches are filtered later
    text = "services:\n  web:\n    environment:\n      DATABASE_URL: x\n"
    doc = Document("docker-compose.yml", text)
    assert doc._tree is not None
    ctx = FileContext(doc.file, "yaml", doc._data)
    with_broken = extract(doc._tree, ctx, doc._lines, [broken], None)
    assert [s.entity for s in with_broken] == ["env/DATABASE_URL"]
    assert with_broken == doc.symbols


@pytest.mark.parametrize("language", QUERIED)
def test_the_text_splitter_finds_tree_sitters_patterns(language: str) -> None:
    whole = builtin_query(language)
    assert whole is not None
    spans = queries.pattern_spans(whole.text)
    assert spans is not None
    count = whole.query.pattern_count
    assert [start for start, _, _ in spans] == [
        whole.query.start_byte_for_pattern(i) for i in range(count)
    ]
    assert [end for _, end, _ in spans[:-1]] == [start for start, _, _ in spans[1:]]
    assert spans[-1][1] == len(whole.text.encode("utf-8"))
    assert [files for _, _, files in spans] == [props.get("files") for props in whole.settings]


@pytest.mark.parametrize("language", QUERIED)
def test_a_builtin_query_for_a_file_compiles_only_what_applies(language: str) -> None:
    whole = builtin_query(language)
    split = queries._split(language)
    assert whole is not None and split is not None
    for name in NAMES:
        # the core: what is outside the `; part:` sections (test_indexer_query_parts.py)
        keep = [
            i
            for i, props in enumerate(whole.settings)
            if _applies(props, name) and split.part_of[i] is None
        ]
        found = queries.builtin_for_file(language, name)
        if not keep:
            assert found is None
            continue
        assert found is not None
        if len(keep) == len(whole.settings):
            assert found is whole
            continue
        assert found.query.pattern_count == len(keep)
        assert found.settings == tuple(whole.settings[i] for i in keep)
        assert found.primaries == tuple(whole.primaries[i] for i in keep)
        assert queries.builtin_for_file(language, name) is found  # compiled once


def _applies(props: dict[str, str | None], name: str) -> bool:
    return not props.get("files") or _matches(props, name)


def test_text_that_is_not_plainly_patterns_is_not_split() -> None:
    assert queries.pattern_spans("((identifier) @x") is None  # unbalanced
    assert queries.pattern_spans('(identifier) @x\n(#eq? @x "y")\n') is None
    assert queries.pattern_spans("; only a comment\n") is None
    assert queries.pattern_spans('(string) @x ; a ( in a comment\n("(") @y\n') == [
        (0, 31, None),
        (31, 40, None),
    ]


def test_without_a_split_the_whole_query_is_narrowed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(queries, "_splits", {})
    monkeypatch.setattr(queries, "pattern_spans", lambda text: None)
    yaml = builtin_query("yaml")
    assert yaml is not None
    found = queries.builtin_for_file("yaml", "docker-compose.yml")
    assert found is yaml.for_file("docker-compose.yml")
    assert found is not None and found.query.pattern_count == yaml.query.pattern_count - 1
