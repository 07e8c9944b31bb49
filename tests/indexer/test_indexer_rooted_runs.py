"""`CompiledQuery.matches`: patterns rooted at the grammar's root node run in their own
cursor (matches start at the root only), and the matches are those of the whole query."""

from __future__ import annotations

from tree_sitter import Node, QueryCursor

from cairn.indexer import index_text
from cairn.indexer.languages import parser
from cairn.indexer.queries import CompiledQuery, builtin_queries, compile_query

SAMPLES = {
    ("python", "settings.py"): b"""\
import os
TIMEOUT = 30
A, B = 1, 2
if os.environ.get("X"):
    DEBUG = True
else:
    DEBUG = False
try:
    LEVEL = os.environ["LEVEL"]
except KeyError:
    LEVEL = "info"


class Order:
    STATUS = "new"

    def total(self):
        INNER = 1
        return INNER
""",
    ("python", "broken.py"): b"X = 1\ndef f(:\n    Y = 2\nZ = 3\n",
    ("javascript", "app.js"): b"""\
const LIMIT = 10;
export const NAME = "x";
function f() { const inner = 1; return inner; }
class A { m() {} }
""",
    ("go", "main.go"): b"""\
package main

const Max = 3

var Name = "x"

type T struct{}

func (t T) Run() { const local = 1 }
""",
    ("ruby", "app.rb"): b"LIMIT = 5\nclass A\n  B = 2\n  def m; end\nend\n",
    ("rust", "lib.rs"): b"const MAX: u32 = 3;\nfn f() { const L: u32 = 1; }\n"
    b"impl A { fn m(&self) {} }\n",
    ("json", "package.json"): b'{"dependencies": {"left-pad": "1.0.0"}}\n',
}


def _key(pattern: int, nodes: dict[str, list[Node]]) -> tuple[object, ...]:
    return (
        pattern,
        tuple(sorted((name, tuple(n.byte_range for n in ns)) for name, ns in nodes.items())),
    )


def _whole(compiled: CompiledQuery, root: Node) -> list[tuple[object, ...]]:
    return sorted(_key(p, n) for p, n in QueryCursor(compiled.query).matches(root))


def test_rooted_patterns_run_apart_and_find_the_same_matches() -> None:
    split = 0
    for (language, name), data in SAMPLES.items():
        root = parser(language).parse(data).root_node
        for compiled in builtin_queries(language, name, data):
            plan = compiled._make_plan()
            if len(plan) == 2:
                split += 1
                (_, depth_a, keep_a), (_, depth_b, keep_b) = plan
                assert depth_a is None and depth_b == 0
                assert sorted((*(keep_a or ()), *(keep_b or ()))) == list(
                    range(compiled.query.pattern_count)
                )
            got = sorted(_key(p, n) for p, n in compiled.matches(root))
            assert got == _whole(compiled, root), (language, name)
            assert got, (language, name)
            # and within a byte range, as a re-index of some chunks asks
            half = (0, len(data) // 2)
            cursor = QueryCursor(compiled.query)
            cursor.set_byte_range(*half)
            want = sorted(_key(p, n) for p, n in cursor.matches(root))
            assert sorted(_key(p, n) for p, n in compiled.matches(root, half)) == want
    assert split >= 4  # Python, JavaScript, Go, Rust and Ruby have rooted constant patterns


def test_a_query_of_rooted_patterns_only_runs_at_the_root() -> None:
    compiled = compile_query("python", "(module (expression_statement) @range)", "q.scm")
    plan = compiled._make_plan()
    assert [(depth, keep) for _, depth, keep in plan] == [(0, None)]
    root = parser("python").parse(b"x = 1\ndef f():\n    y = 2\n").root_node
    assert len(compiled.matches(root)) == 1


def test_a_user_query_mixing_both_keeps_each_patterns_settings() -> None:
    text = """\
(function_definition name: (identifier) @function.introduce) @range
((module (expression_statement (assignment left: (identifier) @env.reference
  right: (string)))) (#set! files "*.py"))
"""
    compiled = compile_query("python", text, "user.scm")
    plan = compiled._make_plan()
    assert [keep for _, _, keep in plan] == [(0,), (1,)]
    root = parser("python").parse(b'HOME = "x"\ndef f():\n    Y = "z"\n').root_node
    found = compiled.matches(root)
    assert sorted(p for p, _ in found) == [0, 1]
    assert compiled.settings[1] == {"files": "*.py"}


def test_module_constants_are_unchanged_through_the_split_run() -> None:
    data = SAMPLES[("python", "settings.py")]
    entities = {s.entity for s in index_text(data, "settings.py")}
    for name in ("TIMEOUT", "A", "B", "DEBUG", "LEVEL", "Order.STATUS"):
        assert f"settings.py::{name}" in entities
    assert "settings.py::INNER" not in entities
    assert "settings.py::total.INNER" not in entities
