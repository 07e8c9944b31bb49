"""Dependency manifests -> deps/name: pyproject (PEP 621, Poetry), requirements,
package.json, Cargo.toml, go.mod."""

from __future__ import annotations

from indexer_helpers import entities, one, span

from cairn.indexer import Role, index_text, language_for

PYPROJECT = """\
[build-system]
requires = ["setuptools>=69"]

[project]
name = "shop"
dependencies = [
  "stripe>=5,<6",
  "Rich[jupyter]>=13; python_version > '3.8'",
  "typing_extensions",
]

[project.optional-dependencies]
dev = ["pytest>=8"]

[tool.poetry.dependencies]
python = "^3.10"
Django = "^5.0"

[tool.poetry.group.test.dependencies]
hypothesis = "*"

[tool.ruff]
dependencies = ["not-a-dependency"]
"""


def test_pyproject_pep621_and_poetry() -> None:
    symbols = index_text(PYPROJECT, "pyproject.toml")
    assert [e for e, _, _ in entities(symbols)] == [
        "deps/setuptools",
        "deps/stripe",
        "deps/rich",
        "deps/typing-extensions",
        "deps/pytest",
        "deps/django",
        "deps/hypothesis",
    ]
    stripe = one(symbols, "deps/stripe", Role.INTRODUCE)
    assert stripe.kind == "dependency"
    assert stripe.name_range == span(PYPROJECT, '"stripe>=5,<6"')
    assert one(symbols, "deps/django").name_range == span(PYPROJECT, "Django")
    assert one(symbols, "deps/django").range == span(PYPROJECT, 'Django = "^5.0"')


def test_other_toml_files_declare_nothing() -> None:
    assert index_text(PYPROJECT, "config/settings.toml") == []


REQUIREMENTS = """\
# production pins
requests[security]>=2.31  # http client
-r base.txt
-e git+https://example.invalid/org/lib.git#egg=internal_lib
Django==5.0.1 \\
    --hash=sha256:0000
stripe ; python_version >= "3.9"
"""


def test_requirements_files() -> None:
    assert language_for("requirements/prod.txt") == "requirements"
    assert language_for("requirements-dev.txt") == "requirements"
    symbols = index_text(REQUIREMENTS, "requirements-dev.txt")
    assert entities(symbols) == [
        ("deps/requests", "dependency", "introduce"),
        ("deps/internal-lib", "dependency", "introduce"),
        ("deps/django", "dependency", "introduce"),
        ("deps/stripe", "dependency", "introduce"),
    ]
    requests = one(symbols, "deps/requests")
    assert requests.name_range == span(REQUIREMENTS, "requests")
    assert requests.range == span(REQUIREMENTS, "requests[security]>=2.31")
    assert one(symbols, "deps/internal-lib").name_range == span(REQUIREMENTS, "internal_lib")


PACKAGE_JSON = """\
{
  "name": "web",
  "scripts": {"build": "tsc"},
  "dependencies": {"express": "^4.19.0", "@types/node": "^20"},
  "devDependencies": {"vitest": "^1.6.0"},
  "peerDependencies": {"react": ">=18"}
}
"""


def test_package_json() -> None:
    symbols = index_text(PACKAGE_JSON, "web/package.json")
    assert [e for e, _, _ in entities(symbols)] == [
        "deps/express",
        "deps/@types/node",
        "deps/vitest",
        "deps/react",
    ]
    assert one(symbols, "deps/@types/node").name_range == span(PACKAGE_JSON, '"@types/node"')
    assert one(symbols, "deps/express").range == span(PACKAGE_JSON, '"express": "^4.19.0"')
    assert index_text(PACKAGE_JSON, "web/tsconfig.json") == []


CARGO = """\
[package]
name = "engine"

[dependencies]
serde = { version = "1", features = ["derive"] }
tokio = "1"

[dev-dependencies]
proptest = "1"

[dependencies.regex]
version = "1"

[target.'cfg(unix)'.dependencies]
libc = "0.2"

[workspace.dependencies]
anyhow = "1"
"""


def test_cargo_toml() -> None:
    symbols = index_text(CARGO, "engine/Cargo.toml")
    assert [e for e, _, _ in entities(symbols)] == [
        "deps/serde",
        "deps/tokio",
        "deps/proptest",
        "deps/regex",
        "deps/libc",
        "deps/anyhow",
    ]
    assert one(symbols, "deps/serde").name_range == span(CARGO, "serde")
    assert one(symbols, "deps/regex").name_range == span(CARGO, "regex")


GO_MOD = """\
module example.com/shop

go 1.22

require github.com/lib/pq v1.10.9

require (
\tgolang.org/x/sync v0.7.0 // indirect
\tgithub.com/Stretchr/testify v1.9.0
)

replace github.com/lib/pq => ../pq
"""


def test_go_mod() -> None:
    symbols = index_text(GO_MOD, "go.mod")
    assert entities(symbols) == [
        ("deps/github.com/lib/pq", "dependency", "introduce"),
        ("deps/golang.org/x/sync", "dependency", "introduce"),
        ("deps/github.com/stretchr/testify", "dependency", "introduce"),
    ]
    assert one(symbols, "deps/golang.org/x/sync").name_range == span(GO_MOD, "golang.org/x/sync")


COMPOSE = """\
services:
  web:
    environment:
      STRIPE_KEY: ${STRIPE_KEY}
      "LOG_LEVEL": debug
  worker:
    environment:
      - DATABASE_URL=postgres://db/app
      - DEBUG
    labels:
      - not=an-env
spec:
  containers:
    - name: app
      env:
        - name: REDIS_URL
          value: redis://cache
"""


def test_yaml_environment_declarations() -> None:
    symbols = index_text(COMPOSE, "deploy/docker-compose.yml")
    assert entities(symbols) == [
        ("env/STRIPE_KEY", "env", "introduce"),
        ("env/LOG_LEVEL", "env", "introduce"),
        ("env/DATABASE_URL", "env", "introduce"),
        ("env/DEBUG", "env", "introduce"),
        ("env/REDIS_URL", "env", "introduce"),
    ]
    assert one(symbols, "env/STRIPE_KEY").name_range == span(COMPOSE, "STRIPE_KEY")
    assert one(symbols, "env/LOG_LEVEL").name_range == span(COMPOSE, '"LOG_LEVEL"')
    url = one(symbols, "env/DATABASE_URL")
    assert url.name_range == span(COMPOSE, "DATABASE_URL=postgres://db/app")
    assert one(symbols, "env/REDIS_URL").name_range == span(COMPOSE, "REDIS_URL")


def test_files_no_query_applies_to_are_not_parsed() -> None:
    from cairn.indexer import Document

    lock = Document("web/package-lock.json", PACKAGE_JSON)
    assert not lock.indexable and lock._tree is None and lock.symbols == []
    manifest = Document("web/package.json", PACKAGE_JSON)
    assert manifest.indexable and manifest._tree is not None
    assert not Document("config/app.toml", CARGO).indexable
    assert Document("docker-compose.yml", COMPOSE).indexable  # YAML patterns apply anywhere
