"""The entity-path grammar: examples, and hypothesis properties (idempotence, coverage)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.store.paths import (
    FILE_EXTENSIONS,
    EntityKind,
    EntityPathError,
    canonicalise,
    column_path,
    covers,
    kind_of,
    route_path,
    symbol_path,
)

OVERLOAD_PARAMS = ["int", "double d", "String[] a", "Map<K, V> m", "java.util.List<X>", "int... xs"]
ident = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True)


def _case(draw: st.DrawFn, text: str) -> str:
    flips = draw(st.lists(st.booleans(), min_size=len(text), max_size=len(text)))
    return "".join(c.upper() if f else c.lower() for c, f in zip(text, flips, strict=True))


@st.composite
def sql_names(draw: st.DrawFn) -> str:
    parts = draw(st.lists(ident, min_size=1, max_size=3))
    quoted = [f'"{p}"' if draw(st.booleans()) else p for p in parts]
    return _case(draw, ".".join(quoted)) if draw(st.booleans()) else ".".join(quoted)


@st.composite
def fs_paths(draw: st.DrawFn) -> str:
    dirs = draw(st.lists(ident, min_size=1, max_size=3))
    path = "/".join(dirs) + draw(st.sampled_from([".py", ".ts", "/", ".sql"]))
    if not path.endswith("/") and draw(st.booleans()):
        path += "::" + ".".join(draw(st.lists(ident, min_size=1, max_size=3)))
        if draw(st.booleans()):  # an overload: parameter types as a person might write them
            types = draw(st.lists(st.sampled_from(OVERLOAD_PARAMS), min_size=0, max_size=3))
            path += "(" + ", ".join(types) + ")"
    return ("./" if draw(st.booleans()) else "") + path


@st.composite
def others(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["route", "deps", "env"]))
    if kind == "route":
        method = _case(draw, draw(st.sampled_from(["get", "post", "delete"])))
        segs = draw(st.lists(ident, min_size=0, max_size=3))
        param = draw(st.sampled_from(["", "/{id}", "/:id", "/<int:id>"]))
        return f"route/{method} /" + "/".join(segs) + param
    if kind == "deps":
        return "deps/" + _case(draw, draw(st.from_regex(r"[a-z][a-z0-9_\-]{0,10}", fullmatch=True)))
    return "env/" + draw(st.from_regex(r"[A-Z_][A-Z0-9_]{0,10}", fullmatch=True))


entities = st.one_of(sql_names(), fs_paths(), others())


@settings(max_examples=300, deadline=None)
@given(entities)
def test_canonicalise_is_idempotent(raw: str) -> None:
    try:
        once = canonicalise(raw)
    except EntityPathError:
        return
    assert canonicalise(once) == once
    # The kind is stable too, except for the documented collision: a column whose
    # name is a source extension (`a.c`, `t.py`) reads back as a file.
    if not _looks_like_file_name(once):
        assert kind_of(once) == kind_of(raw)


def _looks_like_file_name(path: str) -> bool:
    _stem, dot, ext = path.rpartition(".")
    return bool(dot) and "/" not in path and ext in FILE_EXTENSIONS


@settings(max_examples=300, deadline=None)
@given(entities, entities)
def test_coverage_depends_only_on_canonical_forms(prefix: str, entity: str) -> None:
    try:
        cp, ce = canonicalise(prefix), canonicalise(entity)
    except EntityPathError:
        return
    assert covers(prefix, entity) == covers(cp, ce)
    assert covers(entity, entity)  # an exact match is the narrowest prefix
    # Exact and prefix lookups follow one case rule: equal canonical forms cover alike.
    assert covers(prefix, entity) == covers(cp.upper() if kind_of(cp) in _FOLDED else cp, ce)


_FOLDED = {EntityKind.TABLE, EntityKind.COLUMN}


@settings(max_examples=200, deadline=None)
@given(sql_names(), ident)
def test_a_table_covers_its_columns_whatever_the_case(table: str, column: str) -> None:
    try:
        t = canonicalise(table)
    except EntityPathError:
        return
    if kind_of(t) is not EntityKind.TABLE:
        return
    if column.lower() in FILE_EXTENSIONS:
        return  # the documented collision: `a.kt` reads as a Kotlin file
    col = column_path(table, column)
    assert covers(table.upper(), col.upper())
    assert covers(t, col)
    assert not covers(col, t)
    assert not covers(t + "x", col)  # a sibling table sharing a prefix is not covered


@pytest.mark.parametrize(
    ("raw", "canonical", "kind"),
    [
        ('"Public"."Users"."Email"', "users.email", EntityKind.COLUMN),
        ("USERS", "users", EntityKind.TABLE),
        ("./src//auth.py::Session.login", "src/auth.py::Session.login", EntityKind.SYMBOL),
        ("src\\app.py", "src/app.py", EntityKind.FILE),
        ("route/get /users/:id/", "route/GET /users/{id}", EntityKind.ROUTE),
        ("deps/Stripe_Python", "deps/stripe-python", EntityKind.DEPENDENCY),
        ("env/STRIPE_KEY", "env/STRIPE_KEY", EntityKind.ENV),
        ("app.py", "app.py", EntityKind.FILE),
        ("src/", "src/", EntityKind.DIRECTORY),
    ],
)
def test_examples(raw: str, canonical: str, kind: EntityKind) -> None:
    assert canonicalise(raw) == canonical
    assert kind_of(raw) is kind


@pytest.mark.parametrize(
    "bad", ["", "   ", "/etc/passwd", "../up.py", "route/FETCH /x", "a.b.c.d", "env/1X", "x\x00"]
)
def test_malformed_paths_are_refused_with_a_message(bad: str) -> None:
    with pytest.raises(EntityPathError) as info:
        canonicalise(bad)
    assert str(info.value) and "\n" not in str(info.value)


def test_route_parameters_fold_across_frameworks() -> None:
    forms = ["/users/{id}", "/users/:id", "/users/<int:id>", "users/{id}/"]
    assert {route_path("get", f) for f in forms} == {"route/GET /users/{id}"}
    assert covers("route/GET /users", "route/GET /users/{id}")
    assert not covers("route/GET /users", "route/GET /users_admin")


constant_names = st.from_regex(r"[A-Z_][A-Z0-9_]{0,10}", fullmatch=True)


@settings(max_examples=200, deadline=None)
@given(st.lists(ident, min_size=1, max_size=3), st.lists(ident, max_size=2), constant_names)
def test_constants_are_symbols_covered_by_their_file_and_class(
    dirs: list[str], scope: list[str], name: str
) -> None:
    file = "/".join(dirs) + ".py"
    qualified = ".".join([*scope, name])
    constant = symbol_path(file, qualified)
    assert constant == f"{canonicalise(file)}::{qualified}"
    assert canonicalise(constant) == constant
    assert kind_of(constant) is EntityKind.SYMBOL  # the grammar sees a symbol
    assert EntityKind.CONSTANT.coarse is EntityKind.SYMBOL
    assert covers(file, constant)
    if scope:
        assert covers(f"{file}::{'.'.join(scope)}", constant)
    # a constant covers neither a sibling sharing its prefix nor its class
    assert not covers(constant, constant + "_X")
    assert not covers(constant, f"{file}::{'.'.join(scope) or 'x'}")


def test_constant_examples() -> None:
    assert canonicalise("./app//settings.py::DEBUG") == "app/settings.py::DEBUG"
    assert canonicalise("shop/models.py::Order.STATUS_CHOICES") == (
        "shop/models.py::Order.STATUS_CHOICES"
    )
    assert EntityKind("constant") is EntityKind.CONSTANT


# --- overloads (docs/entity-paths.md#overloads) ------------------------------------------


@pytest.mark.parametrize(
    ("raw", "canonical"),
    [
        ("src/Assert.java::Assert.geq(double)", "src/Assert.java::Assert.geq(double)"),
        ("src/Assert.java::Assert.geq( double actual )", "src/Assert.java::Assert.geq(double)"),
        ("src/Assert.java::Assert.geq ()", "src/Assert.java::Assert.geq()"),
        ("src/Assert.java::Assert.geq( )", "src/Assert.java::Assert.geq()"),
        (
            "src/IOUtils.java::IOUtils.copy(final java.util.Map<String, List<byte[]>> m,"
            " int... xs)",
            "src/IOUtils.java::IOUtils.copy(Map,int[])",
        ),
        ('src/A.java::A.f(byte b[], @Nullable("x") String s)', "src/A.java::A.f(byte[],String)"),
        ("src/A.java::A.f(int[][] grid, Object ... rest)", "src/A.java::A.f(int[][],Object[])"),
        (
            "src/a.ts::K.m(a: string, b?: number[], c: Array<T> = [])",
            "src/a.ts::K.m(string,number[],Array)",
        ),
        ("src/a.ts::f(...rest: string[])", "src/a.ts::f(string[])"),
    ],
)
def test_overload_suffixes_are_normalised(raw: str, canonical: str) -> None:
    assert canonicalise(raw) == canonical
    assert kind_of(raw) is EntityKind.SYMBOL
    assert symbol_path(raw.split("::")[0], raw.split("::")[1]) == canonical


@pytest.mark.parametrize(
    "bad",
    [
        "src/A.java::A.f(int",
        "src/A.java::A.f(int))",
        "src/A.java::A(int).f",  # the suffix belongs to the last name only
        "src/A.java::A.f(int)x",
        "src/A.java::A.f(,)",
        "src/A.java::A.f(int a b)",
        "src/a.ts::f(cb: (x: number) => void)",
        "src/a.ts::f(x: string | number)",
        "src/A.java::(int)",
    ],
)
def test_malformed_overload_suffixes_are_refused_in_one_line(bad: str) -> None:
    with pytest.raises(EntityPathError) as err:
        canonicalise(bad)
    assert "\n" not in str(err.value)


def test_a_bare_name_covers_every_overload_and_an_overload_only_itself() -> None:
    bare = "src/Assert.java::Assert.geq"
    assert covers(bare, "src/Assert.java::Assert.geq(double)")
    assert covers(bare, "src/Assert.java::Assert.geq()")
    assert covers("src/Assert.java::Assert", "src/Assert.java::Assert.geq(int)")
    assert covers("src/Assert.java", "src/Assert.java::Assert.geq(int)")
    assert covers("src/Assert.java::Assert.geq(double d)", "src/Assert.java::Assert.geq(double)")
    assert not covers("src/Assert.java::Assert.geq(int)", "src/Assert.java::Assert.geq(double)")
    assert not covers("src/Assert.java::Assert.geq(int)", bare)
    assert not covers("src/Assert.java::Assert.geq()", "src/Assert.java::Assert.geq(int)")
    assert not covers(bare, "src/Assert.java::Assert.geqx(int)")
