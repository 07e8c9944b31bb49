"""Module- and class-level assignments are entities (kind `constant`): settings,
choices, versions. Locals inside functions are not."""

from __future__ import annotations

from indexer_helpers import entities, one, span

from cairn.indexer import Document, index_text

SETTINGS = """\
import os

DEBUG = os.environ.get("DEBUG") == "1"
VERSION = '1.1.0'
if DEBUG:
    CACHE_TTL = 0
else:
    CACHE_TTL = 300
try:
    from .local import *  # noqa
except ImportError:
    SECRET = "dev"


def configure():
    TIMEOUT = 5
    return TIMEOUT


class Interface(models.Model):
    IFACE_FF_EXTREME_SS = 5300
    name = models.CharField(max_length=64)
"""


def test_python_settings_and_class_constants() -> None:
    symbols = index_text(SETTINGS, "net/settings.py")
    constants = [e for e in entities(symbols) if e[1] == "constant"]
    assert constants == [
        ("net/settings.py::DEBUG", "constant", "introduce"),
        ("net/settings.py::VERSION", "constant", "introduce"),
        ("net/settings.py::CACHE_TTL", "constant", "introduce"),
        ("net/settings.py::CACHE_TTL", "constant", "introduce"),
        ("net/settings.py::SECRET", "constant", "introduce"),
        ("net/settings.py::Interface.IFACE_FF_EXTREME_SS", "constant", "introduce"),
    ]
    version = one(symbols, "net/settings.py::VERSION")
    assert version.name_range == span(SETTINGS, "VERSION")
    assert version.range == span(SETTINGS, "VERSION = '1.1.0'")
    # a lower-case class attribute is a field: the Django field is its column, not a constant
    assert one(symbols, "net_interface.name").kind == "column"
    assert "net/settings.py::Interface.name" not in {s.entity for s in symbols}
    assert "net/settings.py::configure.TIMEOUT" not in {s.entity for s in symbols}


def test_javascript_constants_but_not_let_or_function_values() -> None:
    text = (
        "const MAX = 3;\nlet counter = 0;\nvar legacy = 1;\n"
        "export const routes = ['/a'];\nconst build = () => MAX;\n"
        "function f() { const inner = 1; return inner; }\n"
    )
    assert entities(index_text(text, "src/config.js")) == [
        ("src/config.js::MAX", "constant", "introduce"),
        ("src/config.js::routes", "constant", "introduce"),
        ("src/config.js::build", "function", "introduce"),
        ("src/config.js::f", "function", "introduce"),
    ]


def test_java_needs_static_and_final() -> None:
    text = (
        "class C {\n  static final int A = 1;\n  final int b = 2;\n"
        "  static int c = 3;\n  private static final long serialVersionUID = 1L;\n}\n"
    )
    assert [e for e in entities(index_text(text, "C.java")) if e[1] == "constant"] == [
        ("C.java::C.A", "constant", "introduce"),
        ("C.java::C.serialVersionUID", "constant", "introduce"),
    ]


def test_editing_a_constant_reindexes_it() -> None:
    doc = Document("net/settings.py", SETTINGS)
    assert one(doc.symbols, "net/settings.py::VERSION")
    line = SETTINGS.splitlines().index("VERSION = '1.1.0'")
    doc.edit(line, 0, line, len("VERSION"), "RELEASE")
    names = {s.entity for s in doc.symbols}
    assert "net/settings.py::RELEASE" in names and "net/settings.py::VERSION" not in names
    assert doc.symbols == index_text(doc.text, "net/settings.py")


def test_sqlalchemy2_mapped_fields_are_columns_not_constants() -> None:
    text = (
        "class User(Base):\n"
        '    __tablename__ = "users"\n'
        '    KINDS = ("a", "b")\n'
        "    email_verified: Mapped[bool] = mapped_column(default=False)\n"
        "    nickname = 'x'\n"
    )
    symbols = index_text(text, "app/models.py")
    at_field = [s for s in symbols if s.name_range == span(text, "email_verified")]
    assert [(s.entity, s.kind) for s in at_field] == [("users.email_verified", "column")]
    constants = [e[0] for e in entities(symbols) if e[1] == "constant"]
    assert constants == ["app/models.py::User.KINDS"]
