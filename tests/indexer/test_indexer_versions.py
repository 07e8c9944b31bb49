"""Dependencies carry their declared version or constraint (`Symbol.version`), from
every manifest the indexer reads, so a version change can be a `modify` with from/to
and a downgrade a revert."""

from __future__ import annotations

import pytest
from indexer_helpers import span

from cairn.indexer import Document, index_text, language_for


def versions(text: str, path: str) -> list[tuple[str, str]]:
    return [(s.entity, s.version) for s in index_text(text, path) if s.kind == "dependency"]


CASES = [
    (
        "requirements.txt",
        'stripe[async]>=5, <6 ; python_version>"3.8"\npsycopg2==2.6.1  # pinned\ndjango\n'
        "-e git+https://example.invalid/x.git#egg=foo\nlib @ https://example.invalid/lib.whl\n",
        [
            ("deps/stripe", ">=5,<6"),
            ("deps/psycopg2", "==2.6.1"),
            ("deps/django", ""),
            ("deps/foo", ""),
            ("deps/lib", "@ https://example.invalid/lib.whl"),
        ],
    ),
    ("requirements/dev.txt", "pytest~=8.0\n", [("deps/pytest", "~=8.0")]),
    ("dev-requirements.txt", "ruff==0.4.1\n", [("deps/ruff", "==0.4.1")]),
    (
        "go.mod",
        "module shop\n\nrequire github.com/lib/pq v1.10.9\n"
        "require (\n\tgolang.org/x/net v0.17.0 // indirect\n)\n",
        [("deps/github.com/lib/pq", "v1.10.9"), ("deps/golang.org/x/net", "v0.17.0")],
    ),
    (
        "pyproject.toml",
        '[project]\ndependencies = ["stripe[async]>=5", "requests"]\n'
        '[project.optional-dependencies]\ndev = ["pytest==8.1"]\n'
        '[tool.poetry.dependencies]\npython = "^3.11"\ndjango = "^4.2"\n'
        'celery = {version = "^5.3", extras = ["redis"]}\nlocal = {path = "../local"}\n',
        [
            ("deps/stripe", ">=5"),
            ("deps/requests", ""),
            ("deps/pytest", "==8.1"),
            ("deps/django", "^4.2"),
            ("deps/celery", "^5.3"),
            ("deps/local", ""),
        ],
    ),
    (
        "Cargo.toml",
        '[dependencies]\ntokio = { version = "1.3", features = ["full"] }\nanyhow = "1"\n'
        'mylib = { path = "../mylib" }\n[dependencies.serde]\nversion = "1.0.190"\n',
        [
            ("deps/tokio", "1.3"),
            ("deps/anyhow", "1"),
            ("deps/mylib", ""),
            ("deps/serde", "1.0.190"),
        ],
    ),
    (
        "package.json",
        '{"name": "x", "version": "1.0.0", "dependencies": {"lodash": "^4.17.21"},\n'
        ' "devDependencies": {"@types/node": "20.1.0"}}\n',
        [("deps/lodash", "^4.17.21"), ("deps/@types/node", "20.1.0")],
    ),
    (
        "Pipfile",
        '[packages]\nrequests = "==2.31"\nflask = "*"\n'
        '[dev-packages]\nblack = {version = ">=23"}\n',
        [("deps/requests", "==2.31"), ("deps/flask", "*"), ("deps/black", ">=23")],
    ),
    (
        "Gemfile",
        'source "https://rubygems.org"\ngem "rails", "~> 7.0"\ngem "pg"\n',
        [("deps/rails", "~> 7.0"), ("deps/pg", "")],
    ),
    (
        "poetry.lock",
        '[[package]]\nname = "Django"\nversion = "4.2.1"\n\n[[package]]\nname = "asgiref"\n'
        'version = "3.7.2"\n',
        [("deps/django", "4.2.1"), ("deps/asgiref", "3.7.2")],
    ),
    (
        "Cargo.lock",
        '[[package]]\nname = "serde"\nversion = "1.0.190"\n',
        [("deps/serde", "1.0.190")],
    ),
    ("uv.lock", '[[package]]\nname = "idna"\nversion = "3.6"\n', [("deps/idna", "3.6")]),
    (
        ".pre-commit-config.yaml",
        "repos:\n  - repo: https://github.com/psf/black\n    rev: 23.1.0\n    hooks:\n"
        "      - id: black\n  - repo: 'https://github.com/astral-sh/ruff-pre-commit.git'\n"
        '    rev: "v0.1.0"\n  - repo: local\n    hooks: []\n',
        [("deps/black", "23.1.0"), ("deps/ruff-pre-commit", "v0.1.0")],
    ),
]


@pytest.mark.parametrize(("path", "text", "expected"), CASES, ids=[c[0] for c in CASES])
def test_every_manifest_gives_versions(
    path: str, text: str, expected: list[tuple[str, str]]
) -> None:
    assert versions(text, path) == expected


DOCKERFILE = """\
# syntax=docker/dockerfile:1
ARG BASE=python:3.12
FROM --platform=$BUILDPLATFORM node:18-alpine AS assets
RUN npm ci
FROM docker.io/library/python:3.12-slim AS app
RUN pip install --no-cache-dir -r requirements.txt \\
    && pip install "psycopg2==2.6.1" gunicorn>=21 \\
       -i https://example.invalid/simple uvicorn[standard]==0.23 ; echo done
# a comment inside nothing
RUN python -m pip install setuptools==69.0 ./local-package
ENV PIP=pip \\
    X=pip
COPY --from=assets /x /y
FROM app
FROM ${BASE}
FROM scratch
FROM ghcr.io/org/tool:v1.2
"""


def test_dockerfile_images_and_pip_installs() -> None:
    assert versions(DOCKERFILE, "Dockerfile") == [
        ("deps/node", "18-alpine"),
        ("deps/python", "3.12-slim"),
        ("deps/psycopg2", "==2.6.1"),
        ("deps/gunicorn", ">=21"),
        ("deps/uvicorn", "==0.23"),
        ("deps/setuptools", "==69.0"),
        ("deps/ghcr.io/org/tool", "v1.2"),
    ]
    symbols = index_text(DOCKERFILE, "Dockerfile")
    psycopg = next(s for s in symbols if s.entity == "deps/psycopg2")
    assert psycopg.name_range == span(DOCKERFILE, "psycopg2")
    python = next(s for s in symbols if s.entity == "deps/python")
    assert python.name_range == span(DOCKERFILE, "python", after="library/")
    for name in ("Dockerfile", "Dockerfile.prod", "api.Dockerfile", "Containerfile"):
        assert language_for(f"deploy/{name}") == "dockerfile"


def test_a_version_survives_edits_and_reaches_json() -> None:
    text = '{"dependencies": {"lodash": "^4.17.21", "react": "18.2.0"}}\n'
    doc = Document("package.json", text)
    doc.edit(0, text.index("18.2.0"), 0, text.index("18.2.0") + 6, "17.0.2")
    assert [(s.entity, s.version) for s in doc.symbols] == [
        ("deps/lodash", "^4.17.21"),
        ("deps/react", "17.0.2"),
    ]
    assert doc.symbols[1].as_json()["version"] == "17.0.2"
    code = index_text("def f(): pass\n", "a.py")[0]
    assert code.version == "" and "version" not in code.as_json()
