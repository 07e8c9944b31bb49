"""The cache of generated code (cairn.lsp.codegen_cache): what attrs and cattrs compile
at start-up is reused by the next process, identical to a fresh compile, and a bad
cache file is never trusted.

Each case runs in a fresh interpreter: the cache patches modules once per process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import CodeType

import pytest

from cairn.lsp import codegen_cache

# Builds attrs classes (methods generated and compiled by attrs) and a cattrs hook,
# then prints what the cache did and what the generated code does.
PROGRAM = r"""
import json, sys
from cairn.lsp.startup import prepare
cache = prepare()
import attrs, cattrs, dataclasses

@dataclasses.dataclass(frozen=True, order=True)
class Plain:
    a: int
    b: str = "x"
    c: list = dataclasses.field(default_factory=list)

@attrs.define
class Point:
    x: int
    y: int = 0
    tags: list = attrs.Factory(list)

@attrs.frozen
class Frozen:
    name: str
    size: float = 1.5

p = Point(1)
conv = cattrs.Converter()
back = conv.structure({"x": 3, "y": 4, "tags": ["a"]}, Point)
init = Point.__init__.__code__
out = {
    "hits": cache.hits,
    "misses": cache.misses,
    "repr": repr(p),
    "eq": [p == Point(1), p == Point(2), Frozen("a") == Frozen("a")],
    "hash": hash(Frozen("a")) == hash(Frozen("a")),
    "structured": repr(back),
    "unstructured": conv.unstructure(back),
    "init_flags": init.co_flags,
    "init_file": init.co_filename,
    "init_consts": repr(init.co_consts),
    "dataclass": [repr(Plain(1)), Plain(1) < Plain(2), Plain(1) == Plain(1, "x")],
    "dataclass_hash": hash(Plain(1, "y", None)) == hash(Plain(1, "y", None)),
    "saved": cache.save(),
}
print(json.dumps(out))
"""


def run(cache_home: Path, hash_seed: str = "0") -> dict[str, object]:
    """PROGRAM's output. A fixed string-hash seed by default: attrs writes the hash of a
    name into a frozen class's `__hash__` source, which otherwise differs per process."""
    env = {
        **os.environ,
        "XDG_CACHE_HOME": str(cache_home),
        "PYTHONSAFEPATH": "1",
        "PYTHONHASHSEED": hash_seed,
    }
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def cache_file(home: Path) -> Path:
    files = list((home / "cairn").glob("lsp-codegen-*.marshal"))
    assert len(files) == 1, files
    return files[0]


def behaviour(out: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in out.items() if k not in {"hits", "misses", "saved"}}


def test_a_second_process_reuses_the_code_and_behaves_identically(tmp_path: Path) -> None:
    first = run(tmp_path)
    assert first["misses"]
    assert first["saved"] is True
    assert cache_file(tmp_path).stat().st_size > 0

    second = run(tmp_path)
    assert second["misses"] == 0
    assert second["hits"] == first["hits"] + first["misses"]  # type: ignore[operator]
    assert second["saved"] is False  # nothing new: the file is left alone
    assert behaviour(second) == behaviour(first)
    assert second["repr"] == "Point(x=1, y=0, tags=[])"
    assert second["eq"] == [True, False, True]
    assert second["unstructured"] == {"x": 3, "y": 4, "tags": ["a"]}
    assert second["dataclass"] == ["Plain(a=1, b='x', c=[])", True, True]


def test_sources_that_differ_per_process_do_not_rewrite_the_file(tmp_path: Path) -> None:
    first = run(tmp_path, hash_seed="1")
    written = cache_file(tmp_path).stat().st_mtime_ns
    second = run(tmp_path, hash_seed="2")
    assert 0 < int(second["misses"]) < 4  # type: ignore[call-overload]  # the frozen classes
    total = int(first["hits"]) + int(first["misses"])  # type: ignore[call-overload]
    assert int(second["hits"]) == total - int(second["misses"])  # type: ignore[call-overload]
    assert second["saved"] is False
    assert cache_file(tmp_path).stat().st_mtime_ns == written
    assert behaviour(second) == behaviour(first)


def test_cached_code_keeps_the_calling_modules_future_flags(tmp_path: Path) -> None:
    """attrs' module has `from __future__ import annotations`; code it compiles inherits
    that flag, and so must code the cache hands back."""
    import attr._make

    flag = codegen_cache.future_flags(attr._make)
    first = run(tmp_path)
    second = run(tmp_path)
    assert first["init_flags"] == second["init_flags"]
    assert int(first["init_flags"]) & flag == flag  # type: ignore[call-overload]


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"not a cache at all",
        b"\x00\x00\r\n" + codegen_cache.FORMAT + b"\xff\xff",  # another interpreter's magic
        codegen_cache.MAGIC_NUMBER + codegen_cache.FORMAT + b"\xff\xfe garbage",
        codegen_cache.MAGIC_NUMBER + codegen_cache.FORMAT + b"N",  # marshalled None
    ],
)
def test_a_bad_cache_file_is_ignored_and_rewritten(tmp_path: Path, content: bytes) -> None:
    good = run(tmp_path)
    path = cache_file(tmp_path)
    path.write_bytes(content)
    again = run(tmp_path)
    assert (again["hits"], again["misses"]) == (good["hits"], good["misses"])  # nothing read
    assert behaviour(again) == behaviour(good)
    assert again["saved"] is True
    assert run(tmp_path)["misses"] == 0  # rewritten whole


def test_entries_for_other_source_never_answer(tmp_path: Path) -> None:
    """A stored entry stands only for its exact source, filename, mode and flags."""
    cache = codegen_cache.CodeCache(tmp_path / "c.marshal")
    compile_ = cache.compiler(0)
    a = compile_("x = 1\n", "<gen A>", "exec")
    b = compile_("x = 2\n", "<gen A>", "exec")
    c = compile_("x = 1\n", "<gen B>", "exec")
    assert (a.co_consts, b.co_consts) != (b.co_consts, a.co_consts)
    assert c.co_filename == "<gen B>"
    assert cache.misses == 3 and cache.save()

    reread = codegen_cache.CodeCache(tmp_path / "c.marshal")
    compile_ = reread.compiler(0)
    ns: dict[str, object] = {}
    exec(compile_("x = 2\n", "<gen A>", "exec"), ns)
    assert ns["x"] == 2
    assert compile_("x = 3\n", "<gen A>", "exec").co_consts != b.co_consts
    annotated = reread.compiler(codegen_cache.future_flags(codegen_cache))
    assert annotated("x = 2\n", "<gen A>", "exec") is not None
    assert (reread.hits, reread.misses) == (1, 2)  # other flags: another entry


def test_exec_of_source_goes_through_the_cache(tmp_path: Path) -> None:
    cache = codegen_cache.CodeCache(tmp_path / "c.marshal")
    exec_ = cache.executor(0)
    source = "def f(x):\n    return x + y\n"
    for _ in range(2):
        ns: dict[str, object] = {}
        exec_(source, {"y": 2}, ns)
        assert ns["f"](1) == 3  # type: ignore[operator]
        assert ns["f"].__code__.co_filename == "<string>"  # type: ignore[attr-defined]
    assert (cache.hits, cache.misses) == (1, 1)
    ns = {}
    exec_(compile("z = 5\n", "<c>", "exec"), ns)  # a code object: run as given
    assert ns["z"] == 5 and (cache.hits, cache.misses) == (1, 1)


def test_calls_it_does_not_cache_go_to_the_builtin(tmp_path: Path) -> None:
    import ast

    cache = codegen_cache.CodeCache(tmp_path / "c.marshal")
    compile_ = cache.compiler(0)
    tree = compile_("x = 1\n", "<t>", "exec", ast.PyCF_ONLY_AST)
    assert isinstance(tree, ast.Module)
    assert isinstance(compile_(b"x = 1\n", "<t>", "exec"), CodeType)  # bytes: not cached
    assert cache.hits == cache.misses == 0
    assert not cache.save()  # nothing was cached, nothing written
    assert not (tmp_path / "c.marshal").exists()


def test_someone_elses_cache_file_is_not_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = codegen_cache.CodeCache(tmp_path / "c.marshal")
    cache.compiler(0)("x = 1\n", "<t>", "exec")
    assert cache.save()
    assert len(codegen_cache.CodeCache(tmp_path / "c.marshal").stored) == 1
    owner = (tmp_path / "c.marshal").stat().st_uid
    monkeypatch.setattr(codegen_cache.os, "getuid", lambda: owner + 1)
    assert codegen_cache.CodeCache(tmp_path / "c.marshal").stored == {}


@pytest.mark.parametrize("entry", ["python -m cairn.lsp", "cairn serve"])
async def test_the_server_saves_its_cache_and_the_next_start_answers_the_same(
    tmp_path: Path, entry: str
) -> None:
    """Both entry points install the cache; a session leaves it behind; the next
    session, started from it, publishes the same diagnostics."""
    from lsp_helpers import make_sample

    from cairn.testing import editor as editor_module

    command = (
        [sys.executable, "-m", "cairn.lsp"]
        if entry.startswith("python")
        else [str(Path(sys.executable).with_name("cairn")), "serve"]
    )
    sample = make_sample(tmp_path / "shop")
    home = tmp_path / "cache"

    async def session() -> list[tuple[int, str]]:
        editor = editor_module.Editor(env={"XDG_CACHE_HOME": str(home)}, command=command)
        await editor.start(sample.root)
        try:
            uri = editor.open(sample.root / "db" / "migrations" / "0042_email_verified.sql")
            found = await editor.wait_diagnostics(uri)
            return sorted((d.range.start.line, d.message) for d in found)
        finally:
            await editor.stop()

    first = await session()
    assert first, "the sample's migration re-adds a reverted column"
    written = cache_file(home)
    size = written.stat().st_size
    assert size > 100_000  # the LSP types' generated methods
    assert await session() == first
    assert cache_file(home).stat().st_size >= size


def test_each_environment_has_its_own_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two virtualenvs (other library versions) must not rewrite each other's cache."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    here = codegen_cache.cache_path()
    monkeypatch.setattr(codegen_cache.sys, "prefix", str(tmp_path / "other-venv"))
    there = codegen_cache.cache_path()
    assert here != there and here.parent == there.parent == tmp_path / "cairn"
    assert here.name.startswith(f"lsp-codegen-{sys.implementation.cache_tag}-")
