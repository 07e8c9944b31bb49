"""Which files the indexer reads, and as what."""

from __future__ import annotations

import pytest

from cairn.indexer import language_for


@pytest.mark.parametrize(
    ("path", "language"),
    [
        ("src/app.py", "python"),
        ("stubs/x.pyi", "python"),
        ("db/001_init.sql", "sql"),
        ("web/app.mjs", "javascript"),
        ("web/App.jsx", "javascript"),
        ("web/app.ts", "typescript"),
        ("web/App.tsx", "tsx"),
        ("cmd/main.go", "go"),
        ("src/lib.rs", "rust"),
        ("src/Main.java", "java"),
        ("db/migrate/001_x.rb", "ruby"),
        ("Rakefile", "ruby"),
        ("pyproject.toml", "toml"),
        ("web/package.json", "json"),
        ("ci.yml", "yaml"),
        ("requirements.txt", "requirements"),
        ("requirements-dev.in", "requirements"),
        ("requirements/prod.txt", "requirements"),
        ("go.mod", "gomod"),
        ("windows\\style\\path.py", "python"),
        ("windows\\requirements\\prod.txt", "requirements"),
        ("requirements//prod.txt", "requirements"),
        ("docs/requirements.txt/", "requirements"),  # a trailing slash names the file
        ("deploy/Dockerfile.prod", "dockerfile"),
        ("app.Dockerfile", "dockerfile"),
        ("src/APP.PY", "python"),  # extensions fold case, file names do not
        ("Gemfile", "ruby"),
        ("gemfile", None),
        (".py", None),  # a dot file has no extension
        ("a.", None),
        ("archive.tar.gz", None),
        ("notes.txt", None),
        ("base/prod.txt", None),
        ("README.md", None),
        ("Makefile", None),
    ],
)
def test_language_for(path: str, language: str | None) -> None:
    assert language_for(path) == language
