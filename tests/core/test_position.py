"""The rule for the entity at a position: framework entities first, then history."""

from __future__ import annotations

from cairn.core.position import at_position, rank
from cairn.indexer import index_text

TEXT = """\
from flask import Flask

app = Flask(__name__)


@app.route("/users")
def users():
    return []


class Product(models.Model):
    SKU = models.CharField(max_length=32)
"""


def test_framework_before_generic_then_history_first() -> None:
    symbols = index_text(TEXT, "shop/models.py")
    line = TEXT.splitlines().index("    SKU = models.CharField(max_length=32)")
    here = at_position(symbols, line, 5)
    assert [s.entity for s in here] == ["shop_product.sku", "shop/models.py::Product.SKU"]
    # history does not beat the framework rule, but orders within a kind
    with_history = at_position(symbols, line, 5, lambda e: e.endswith("Product.SKU"))
    assert with_history[0].entity == "shop_product.sku"
    generic = [s for s in here if s.kind == "constant"] * 2
    assert [s.entity for s in rank(generic)] == ["shop/models.py::Product.SKU"]  # one per entity


def test_body_of_a_decorated_function_means_the_function() -> None:
    symbols = index_text(TEXT, "app.py")
    line = TEXT.splitlines().index("    return []")
    assert [s.entity for s in at_position(symbols, line, 6)] == ["app.py::users"]
    route_line = TEXT.splitlines().index('@app.route("/users")')
    assert at_position(symbols, route_line, 13)[0].entity == "route/GET /users"


def test_nothing_there() -> None:
    assert at_position(index_text(TEXT, "app.py"), 1, 0) == []
