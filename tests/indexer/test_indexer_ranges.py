"""Every definition's `range` is the whole definition (decorators, `export`, the
`const`/`var` keyword and the body included), in every language the indexer reads:
a changed line is attributed to the innermost symbol whose range holds it."""

from __future__ import annotations

import pytest
from indexer_helpers import span

from cairn.indexer import index_text
from cairn.indexer.extract import CODE_KINDS

PYTHON = """\
import functools

TIMEOUT = 30
A, B = 1, 2


@functools.cache
def cached(x):
    return x


class Order(Base):
    STATUS: str = "new"

    @property
    def total(self):
        def inner():
            return 1
        return inner()
"""

JAVASCRIPT = """\
const LIMIT = 10;
export const API = {
  base: '/v1',
};
export function helper() {
  return 1;
}
const handler = async (req) => {
  return req;
};
class Service {
  find(id) {
    return id;
  }
}
"""

TYPESCRIPT = """\
export const DEFAULTS: Options = { retries: 3 };
interface Options {
  retries: number;
}
export abstract class Base {
  abstract run(): void;
}
"""

GO = """\
package shop

const Version = "1.2.0"

const (
\tStatusNew = iota
\tStatusPaid
)

var ErrClosed = errors.New("closed")

type Server struct {
\tport int
}

func (s *Server) Start() error {
\treturn nil
}

func main() {
\tconst local = 1
}
"""

RUST = """\
const MAX: u32 = 8;
static NAME: &str = "shop";

struct Stack<T> {
    items: Vec<T>,
}

impl<T> Stack<T> {
    const CAP: usize = 16;

    fn push(&mut self, item: T) {
        self.items.push(item);
    }
}
"""

RUBY = """\
VERSION = "1.0"

module Shop
  class Order
    STATUSES = %w[new paid].freeze

    def total
      42
    end
  end
end
"""

JAVA = """\
public class Order {
    public static final int MAX_ITEMS = 50;
    private int count = 0;

    public int total() {
        return count;
    }

    interface Limits {
        int CAP = 3;
    }
}
"""

CASES = {
    "python": (
        "shop/models.py",
        PYTHON,
        {
            "TIMEOUT": "TIMEOUT = 30",
            "A": "A, B = 1, 2",
            "B": "A, B = 1, 2",
            "cached": "@functools.cache\ndef cached(x):\n    return x",
            "Order": PYTHON[PYTHON.index("class Order") : PYTHON.index("return inner()") + 14],
            "Order.STATUS": 'STATUS: str = "new"',
            "Order.total": PYTHON[PYTHON.index("@property") : PYTHON.index("return inner()") + 14],
            "Order.total.inner": "def inner():\n            return 1",
        },
    ),
    "javascript": (
        "src/app.js",
        JAVASCRIPT,
        {
            "LIMIT": "const LIMIT = 10;",
            "API": "export const API = {\n  base: '/v1',\n};",
            "helper": "export function helper() {\n  return 1;\n}",
            "handler": "const handler = async (req) => {\n  return req;\n};",
            "Service": JAVASCRIPT[JAVASCRIPT.index("class Service") : -1],
            "Service.find": "find(id) {\n    return id;\n  }",
        },
    ),
    "typescript": (
        "src/app.ts",
        TYPESCRIPT,
        {
            "DEFAULTS": "export const DEFAULTS: Options = { retries: 3 };",
            "Options": "interface Options {\n  retries: number;\n}",
            "Base": "export abstract class Base {\n  abstract run(): void;\n}",
            "Base.run": "abstract run(): void",
        },
    ),
    "go": (
        "shop/server.go",
        GO,
        {
            "Version": 'const Version = "1.2.0"',
            "StatusNew": "StatusNew = iota",
            "StatusPaid": "StatusPaid",
            "ErrClosed": 'var ErrClosed = errors.New("closed")',
            "Server": "type Server struct {\n\tport int\n}",
            "Server.Start": "func (s *Server) Start() error {\n\treturn nil\n}",
            "main": "func main() {\n\tconst local = 1\n}",
        },
    ),
    "rust": (
        "src/stack.rs",
        RUST,
        {
            "MAX": "const MAX: u32 = 8;",
            "NAME": 'static NAME: &str = "shop";',
            "Stack": "struct Stack<T> {\n    items: Vec<T>,\n}",
            "Stack.CAP": "const CAP: usize = 16;",
            "Stack.push": "fn push(&mut self, item: T) {\n        self.items.push(item);\n    }",
        },
    ),
    "ruby": (
        "app/models/order.rb",
        RUBY,
        {
            "VERSION": 'VERSION = "1.0"',
            "Shop": RUBY[RUBY.index("module Shop") : -1],
            "Shop.Order": RUBY[RUBY.index("class Order") : RUBY.rindex("\nend")],
            "Shop.Order.STATUSES": "STATUSES = %w[new paid].freeze",
            "Shop.Order.total": "def total\n      42\n    end",
        },
    ),
    "java": (
        "src/Order.java",
        JAVA,
        {
            "Order": JAVA[JAVA.index("public class") : -1],
            "Order.MAX_ITEMS": "public static final int MAX_ITEMS = 50;",
            "Order.total": "public int total() {\n        return count;\n    }",
            "Order.Limits": "interface Limits {\n        int CAP = 3;\n    }",
            "Order.Limits.CAP": "int CAP = 3;",
        },
    ),
}


@pytest.mark.parametrize("language", sorted(CASES))
def test_every_definition_spans_its_whole_text(language: str) -> None:
    path, text, expected = CASES[language]
    symbols = [s for s in index_text(text, path) if s.kind in CODE_KINDS]
    found = {s.entity.partition("::")[2]: s for s in symbols}
    assert sorted(found) == sorted(expected)  # nothing missing, nothing extra (no locals)
    for name, definition in expected.items():
        assert found[name].range == span(text, definition), name
        # the name lies inside the definition
        assert found[name].range.contains(
            found[name].name_range.start_line, found[name].name_range.start_character
        )


def test_a_body_line_belongs_to_the_innermost_definition() -> None:
    """What the recall importer relies on: the innermost range holding a line."""
    symbols = [s for s in index_text(PYTHON, "shop/models.py") if s.kind in CODE_KINDS]
    line = PYTHON.splitlines().index("            return 1")
    holding = [s for s in symbols if s.range.start_line <= line <= s.range.end_line]
    innermost = min(holding, key=lambda s: s.range.end_line - s.range.start_line)
    assert innermost.entity == "shop/models.py::Order.total.inner"
    decorator = PYTHON.splitlines().index("    @property")
    holding = [s for s in symbols if s.range.start_line <= decorator <= s.range.end_line]
    innermost = min(holding, key=lambda s: s.range.end_line - s.range.start_line)
    assert innermost.entity == "shop/models.py::Order.total"
