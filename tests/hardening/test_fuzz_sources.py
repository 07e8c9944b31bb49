"""Fuzzing what a hostile repository feeds Cairn besides its log (hypothesis; `make test`
runs a small budget, `make fuzz` the long one, as in test_fuzz.py):

* the Claude Code hook's input: whatever bytes arrive on its stdin, it allows (0) or
  blocks with one line (2); it never crashes, hangs or passes what it could not read;
* migration and ADR files: whatever text a file holds, each importer reads the folder
  to the end (a file it cannot handle is a skipped item, never an exception).
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cairn.importers.adr import import_adr
from cairn.importers.alembic import import_alembic
from cairn.importers.base import Skipped, SourceError
from cairn.importers.django import import_django
from cairn.importers.rails import import_rails
from cairn.importers.sql import import_sql

SCALE = max(1, int(os.environ.get("CAIRN_FUZZ_SCALE", "1")))
HOOK = Path(__file__).resolve().parents[2] / "editors" / "claude-code" / "hooks"


def budget(examples: int) -> settings:
    return settings(
        max_examples=examples * SCALE,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )


# --- the hook's input ---------------------------------------------------------------------


def _load_hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location("cairn_pretooluse", HOOK / "cairn_pretooluse.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def hook_world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ModuleType, Path]]:
    """The hook module, and a folder holding a file, a FIFO and a link to /dev/zero. Its
    `cairn check` is a stand-in that passes everything: what is fuzzed is the hook's
    reading of its input, not the check (test_gate_fails_closed runs the real one)."""
    root = tmp_path_factory.mktemp("hook")
    (root / "app.py").write_text("def pay():\n    return 1\n")
    os.mkfifo(root / "fifo.py")
    (root / "zero.py").symlink_to("/dev/zero")
    fake = root / "fake-cairn"
    fake.write_text("#!/bin/sh\ncat >/dev/null\nexit 0\n")
    fake.chmod(0o755)
    was = {k: os.environ.get(k) for k in ("CAIRN_BIN", "CAIRN_HOOK_FAIL_OPEN")}
    os.environ["CAIRN_BIN"] = str(fake)
    os.environ.pop("CAIRN_HOOK_FAIL_OPEN", None)
    yield _load_hook(), root
    for key, value in was.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


_scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12)


def _paths(root: Path) -> st.SearchStrategy[Any]:
    named = [str(root / n) for n in ("app.py", "fifo.py", "zero.py", "new.py", "")]
    named += ["app.py", "../app.py", "/dev/zero", "/", "a\x00b", "\ud800.py", str(root)]
    return st.sampled_from(named) | st.text(max_size=20) | _scalars | st.lists(_scalars)


@st.composite
def hook_inputs(draw: st.DrawFn, root: Path) -> bytes:
    kind = draw(st.sampled_from(["payload", "payload", "payload", "json", "bytes"]))
    if kind == "bytes":
        return draw(st.binary(max_size=64))
    if kind == "json":
        value = draw(
            st.recursive(
                _scalars,
                lambda c: st.lists(c) | st.dictionaries(st.text(max_size=5), c),
                max_leaves=6,
            )
        )
        return json.dumps(value).encode()
    tool_input: dict[str, Any] = {"file_path": draw(_paths(root))}
    for key in ("old_string", "new_string", "content", "replace_all", "edits"):
        if draw(st.booleans()):
            tool_input[key] = draw(st.text(max_size=30) | _scalars)
    payload: dict[str, Any] = {
        "tool_name": draw(
            st.sampled_from(["Edit", "Write", "MultiEdit", "Read", "Bash"]) | _scalars
        ),
        "tool_input": draw(st.just(tool_input) | _scalars),
    }
    if draw(st.booleans()):
        payload["cwd"] = draw(_paths(root))
    text = json.dumps(payload)
    if draw(st.booleans()):  # lone surrogates and raw control bytes, as a broken host sends
        text = text.replace("\\ud800", "\ud800")
        return text.encode("utf-8", "surrogatepass")
    return text.encode()


@given(data=st.data())
@budget(100)
def test_hook_input(hook_world: tuple[ModuleType, Path], data: st.DataObject) -> None:
    module, root = hook_world
    raw = data.draw(hook_inputs(root))
    stdin = io.TextIOWrapper(io.BytesIO(raw))
    err = io.StringIO()
    old_stdin = sys.stdin
    sys.stdin = stdin
    try:
        with contextlib.redirect_stderr(err):
            code = module.main()
    finally:
        sys.stdin = old_stdin
    said = err.getvalue()
    assert code in (0, 2), (raw, said)
    if code == 2:
        assert said.count("\n") == 1 and said.startswith("cairn hook: edit blocked"), said
    else:
        assert said == "", said


# --- migration and ADR files --------------------------------------------------------------

PYTHON_BITS = [
    "op.add_column('t', sa.Column('c', sa.String()))\n",
    "for x in L:\n",
    "    ",
    "L = ['a', 'b', 'c']\n",
    "with op.batch_alter_table('t') as b:\n",
    "b.drop_column('c')\n",
    "op.drop_table(T)\n",
    "def upgrade():\n",
    "not ",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "'",
    '"""',
    "\\",
    "#",
    "\n",
    "if x:\n",
    "migrations.AddField('m', 'f', models.IntegerField())",
    "operations = [",
    "class Migration(migrations.Migration):\n",
    "dependencies = [('a', '0001')]\n",
    "revision = 'r1'\n",
    "down_revision = None\n",
    "op.execute('ALTER TABLE t ADD c int')\n",
]
RUBY_BITS = [
    "class M < ActiveRecord::Migration[7.0]\n",
    "def change\n",
    "end\n",
    "add_column :t, :c, :string\n",
    "create_table :t do |t|\n",
    "t.string :x\n",
    "[",
    "]",
    "{",
    "}",
    "execute <<~SQL\n",
    "SQL\n",
    "remove_column :t, :c\n",
    "%w[",
    "'",
    '"',
    "\n",
]
MARKDOWN_BITS = [
    "# Title\n",
    "## Status\n",
    "Accepted\n",
    "Rejected\n",
    "status: ",
    "date: 2024-01-01\n",
    "---\n",
    "entities: [",
    "deps/x",
    "]\n",
    "[",
    "](",
    ")",
    "`src/a.py::f`",
    " ",
    "\t",
    '"',
    "Superseded by ADR-2\n",
    "## Considered Options\n",
    "* opt\n",
    "```\n",
    "\n",
]
SQL_BITS = [
    "ALTER TABLE t ADD COLUMN c int;",
    "CREATE TABLE t (id int);",
    "DROP TABLE t;",
    "--",
    "/*",
    "*/",
    "'",
    ";",
    "(",
    ")",
    "-- migrate:up\n",
    "-- migrate:down\n",
    "\n",
    "$$",
    "BEGIN",
    "END;",
]


def texts(bits: list[str]) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(bits) | st.text(max_size=8), max_size=40).map("".join)


def _drain(make: Callable[[], tuple[int, Iterator[Any]]]) -> None:
    try:
        _count, items = make()
    except SourceError:
        return  # a folder with nothing importable is said in one line by the CLI
    for item in items:
        if isinstance(item, Skipped):
            assert item.reason, item


@given(text=texts(PYTHON_BITS), deep=st.integers(0, 3000))
@budget(40)
def test_alembic_and_django_files(text: str, deep: int) -> None:
    nested = "x = " + "not " * deep + "1\n"
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        versions = root / "versions"
        versions.mkdir()
        (versions / "r1_fuzz.py").write_text(text)
        (versions / "r2_fuzz.py").write_text(
            f"revision = 'r2'\ndown_revision = 'r1'\n{nested}{text}"
        )
        _drain(lambda: import_alembic(versions, root))
        migrations = root / "shop" / "migrations"
        migrations.mkdir(parents=True)
        (migrations / "0001_fuzz.py").write_text(text)
        (migrations / "0002_fuzz.py").write_text(nested + text)
        _drain(lambda: import_django([root], root))


@given(text=texts(RUBY_BITS), deep=st.integers(0, 3000))
@budget(40)
def test_rails_files(text: str, deep: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folder = root / "db" / "migrate"
        folder.mkdir(parents=True)
        (folder / "20240101000000_fuzz.rb").write_text(text)
        (folder / "20240102000000_deep.rb").write_text("x = " + "[" * deep + "]" * deep + text)
        _drain(lambda: import_rails(root, root))


@given(texts=st.lists(texts(MARKDOWN_BITS), min_size=1, max_size=3))
@budget(40)
def test_adr_files(texts: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folder = root / "docs" / "adr"
        folder.mkdir(parents=True)
        (root / "src").mkdir()
        (root / "src" / "a.py").write_text("def f():\n    pass\n")
        for i, text in enumerate(texts, start=1):
            (folder / f"{i:04d}-fuzz.md").write_text(text)
        _drain(lambda: import_adr(folder, root))


@given(text=texts(SQL_BITS))
@budget(40)
def test_sql_files(text: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folder = root / "db"
        folder.mkdir()
        (folder / "V1__fuzz.sql").write_text(text)
        _drain(lambda: import_sql([folder], root))
