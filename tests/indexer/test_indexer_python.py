"""Python: definitions, SQLAlchemy and Django models, Alembic, routes, environment."""

from __future__ import annotations

from indexer_helpers import entities, one, span

from cairn.indexer import Role, index_text

DEFS = """\
import functools


def top_level(x):
    def helper():
        return x
    return helper


class Session:
    class Token:
        def refresh(self):
            pass

    @functools.cache
    def login(self, user):
        pass

    async def logout(self):
        pass
"""


def test_functions_classes_methods_and_nesting() -> None:
    symbols = index_text(DEFS, "src/auth.py")
    assert entities(symbols) == [
        ("src/auth.py::top_level", "function", "introduce"),
        ("src/auth.py::top_level.helper", "function", "introduce"),
        ("src/auth.py::Session", "class", "introduce"),
        ("src/auth.py::Session.Token", "class", "introduce"),
        ("src/auth.py::Session.Token.refresh", "method", "introduce"),
        ("src/auth.py::Session.login", "method", "introduce"),
        ("src/auth.py::Session.logout", "method", "introduce"),
    ]
    login = one(symbols, "src/auth.py::Session.login")
    assert login.name_range == span(DEFS, "login")
    # the whole definition, decorators included
    assert login.range.start_line == span(DEFS, "@functools.cache").start_line
    assert login.range.end_line == span(DEFS, "pass", 1).end_line


SQLALCHEMY = """\
from sqlalchemy import Column, String
from sqlalchemy.orm import Mapped, mapped_column
import sqlalchemy as sa


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    email = Column("email_address", String(255), nullable=False)
    name: Mapped[str] = mapped_column(sa.String, name="full_name")
    org_id = sa.Column(sa.Integer)
    posts = relationship("Post")


class Mixin:
    created = Column(sa.DateTime)


audit = sa.Table("audit_log", metadata, sa.Column("actor", sa.String))
"""


def test_sqlalchemy_declarative_columns() -> None:
    symbols = index_text(SQLALCHEMY, "app/models.py")
    assert one(symbols, "users", Role.INTRODUCE).name_range == span(SQLALCHEMY, '"users"')
    assert one(symbols, "users.id").name_range == span(SQLALCHEMY, "id", after="    id")
    explicit = one(symbols, "users.email_address", Role.INTRODUCE)
    assert explicit.name_range == span(SQLALCHEMY, '"email_address"')
    assert explicit.range == span(
        SQLALCHEMY, 'email = Column("email_address", String(255), nullable=False)'
    )
    assert one(symbols, "users.full_name").name_range == span(SQLALCHEMY, '"full_name"')
    assert one(symbols, "users.org_id").name_range == span(SQLALCHEMY, "org_id")
    # a relationship is no column; a mixin without __tablename__ names no table
    assert not [s for s in symbols if s.entity in ("users.posts", "users.created")]
    assert not [s for s in symbols if s.entity.endswith(".created") and s.kind == "column"]


def test_sqlalchemy_core_table() -> None:
    symbols = index_text(SQLALCHEMY, "app/models.py")
    assert one(symbols, "audit_log", Role.INTRODUCE).name_range == span(SQLALCHEMY, '"audit_log"')
    assert one(symbols, "audit_log.actor", Role.INTRODUCE).name_range == span(SQLALCHEMY, '"actor"')


DJANGO = """\
from django.db import models


class Customer(models.Model):
    email = models.EmailField(unique=True)
    referrer = models.ForeignKey("self", null=True, on_delete=models.SET_NULL)
    legacy_code = models.CharField(max_length=8, db_column="LEGACY")
    tags = models.ManyToManyField("Tag")

    def __str__(self):
        return self.email


class Invoice(models.Model):
    total = models.DecimalField(max_digits=9, decimal_places=2)

    class Meta:
        db_table = "billing_invoices"


class Stamped(models.Model):
    created = models.DateTimeField()

    class Meta:
        abstract = True
"""


def test_django_fields_map_to_app_model_columns() -> None:
    symbols = index_text(DJANGO, "shop/models.py")
    assert one(symbols, "shop_customer.email").name_range == span(DJANGO, "email")
    fk = one(symbols, "shop_customer.referrer_id", Role.INTRODUCE)
    assert fk.name_range == span(DJANGO, "referrer")
    assert one(symbols, "shop_customer.legacy").name_range == span(DJANGO, '"LEGACY"')
    assert not [s for s in symbols if "tags" in s.entity and s.kind == "column"]
    assert one(symbols, "billing_invoices.total").name_range == span(DJANGO, "total")
    assert not [s for s in symbols if s.entity.endswith(".created") and s.kind == "column"]


def test_django_models_package_uses_the_app_folder() -> None:
    symbols = index_text(DJANGO, "shop/models/customer.py")
    assert one(symbols, "shop_customer.email").kind == "column"


ALEMBIC = """\
from alembic import op
import sqlalchemy as sa


def upgrade():
    op.create_table(
        "accounts",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("plan", sa.String(20)),
    )
    op.add_column("users", sa.Column("email_verified", sa.Boolean()))
    op.drop_column("users", "legacy_flag")
    op.alter_column("users", "nick", new_column_name="nickname")
    op.alter_column("users", "bio", type_=sa.Text())
    op.rename_table("sessions", "user_sessions")
    op.drop_table("old_things")
    with op.batch_alter_table("orders") as batch_op:
        batch_op.add_column(sa.Column("total", sa.Numeric()))
        batch_op.drop_column("subtotal")
"""


def test_alembic_operations() -> None:
    symbols = index_text(ALEMBIC, "migrations/versions/1a2b_accounts.py")
    assert one(symbols, "accounts", Role.INTRODUCE).name_range == span(ALEMBIC, '"accounts"')
    assert one(symbols, "accounts.id", Role.INTRODUCE).name_range == span(ALEMBIC, '"id"')
    plan = one(symbols, "accounts.plan", Role.INTRODUCE)
    assert plan.range == span(ALEMBIC, 'sa.Column("plan", sa.String(20))')
    assert one(symbols, "users.email_verified", Role.INTRODUCE).name_range == span(
        ALEMBIC, '"email_verified"'
    )
    assert one(symbols, "users.legacy_flag", Role.REMOVE).name_range == span(
        ALEMBIC, '"legacy_flag"'
    )
    assert one(symbols, "users.nick", Role.REMOVE).name_range == span(ALEMBIC, '"nick"')
    assert one(symbols, "users.nickname", Role.INTRODUCE).name_range == span(ALEMBIC, '"nickname"')
    assert one(symbols, "users.bio", Role.REFERENCE).name_range == span(ALEMBIC, '"bio"')
    assert one(symbols, "sessions", Role.REMOVE).name_range == span(ALEMBIC, '"sessions"')
    assert one(symbols, "user_sessions", Role.INTRODUCE).name_range == span(
        ALEMBIC, '"user_sessions"'
    )
    assert one(symbols, "old_things", Role.REMOVE).name_range == span(ALEMBIC, '"old_things"')
    assert one(symbols, "orders.total", Role.INTRODUCE).name_range == span(ALEMBIC, '"total"')
    assert one(symbols, "orders.subtotal", Role.REMOVE).name_range == span(ALEMBIC, '"subtotal"')


ROUTES = """\
import os
from fastapi import APIRouter

router = APIRouter()


@router.get("/users/{user_id}")
async def read_user(user_id: int):
    return os.environ["DATABASE_URL"]


@app.post("/users")
def create_user():
    key = os.getenv("STRIPE_KEY", "")
    return os.environ.get("FEATURE_FLAGS")


@bp.route("/orders/<int:order_id>", methods=["GET", "DELETE"])
def order(order_id):
    pass


@bp.route("/health")
def health():
    pass
"""


def test_fastapi_and_flask_routes() -> None:
    symbols = index_text(ROUTES, "api/routes.py")
    read = one(symbols, "route/GET /users/{user_id}", Role.INTRODUCE)
    assert read.kind == "route"
    assert read.name_range == span(ROUTES, '"/users/{user_id}"')
    assert read.range.start_line == span(ROUTES, "@router.get").start_line
    assert one(symbols, "route/POST /users").name_range == span(ROUTES, '"/users"')
    flask = span(ROUTES, '"/orders/<int:order_id>"')
    assert one(symbols, "route/GET /orders/{order_id}").name_range == flask
    assert one(symbols, "route/DELETE /orders/{order_id}").name_range == flask
    assert one(symbols, "route/GET /health").name_range == span(ROUTES, '"/health"')
    assert one(symbols, "api/routes.py::read_user").kind == "function"


def test_environment_variable_reads() -> None:
    symbols = index_text(ROUTES, "api/routes.py")
    db = one(symbols, "env/DATABASE_URL", Role.REFERENCE)
    assert db.kind == "env"
    assert db.name_range == span(ROUTES, '"DATABASE_URL"')
    assert db.range == span(ROUTES, 'os.environ["DATABASE_URL"]')
    assert one(symbols, "env/STRIPE_KEY").name_range == span(ROUTES, '"STRIPE_KEY"')
    assert one(symbols, "env/FEATURE_FLAGS").name_range == span(ROUTES, '"FEATURE_FLAGS"')


def test_interpolated_strings_name_nothing() -> None:
    text = 'import os\nx = os.environ[f"KEY_{name}"]\n@app.get(f"/u/{p}")\ndef f(): pass\n'
    assert entities(index_text(text, "a.py")) == [
        ("a.py::x", "constant", "introduce"),
        ("a.py::f", "function", "introduce"),
    ]


PREFIXED = """\
from fastapi import APIRouter
from flask import Blueprint

router = APIRouter(prefix="/users", tags=["users"])
admin = Blueprint("admin", __name__, url_prefix="/admin/")


@router.get("/{user_id}")
def read(user_id: int): ...


@router.post("/")
def create(): ...


@admin.route("/stats", methods=["GET"])
def stats(): ...


@app.get("/health")
def health(): ...
"""


def test_router_and_blueprint_prefixes_in_the_same_file() -> None:
    symbols = index_text(PREFIXED, "api/users.py")
    routes = [e for e, k, _ in entities(symbols) if k == "route"]
    assert routes == [
        "route/GET /users/{user_id}",
        "route/POST /users",
        "route/GET /admin/stats",
        "route/GET /health",
    ]
    assert one(symbols, "route/GET /users/{user_id}").name_range == span(PREFIXED, '"/{user_id}"')


def test_changing_a_prefix_re_reads_every_route() -> None:
    from cairn.indexer import Document

    doc = Document("api/users.py", PREFIXED)
    assert one(doc.symbols, "route/POST /users").kind == "route"
    prefix = span(PREFIXED, '"/users"')
    doc.edit(prefix.start_line, prefix.start_character + 1, prefix.end_line,
             prefix.end_character - 1, "/people")  # fmt: skip
    assert [e for e, k, _ in entities(doc.symbols) if k == "route"][:2] == [
        "route/GET /people/{user_id}",
        "route/POST /people",
    ]
    assert doc.symbols == index_text(doc.text, "api/users.py")


URLS = """\
from django.urls import path, re_path

urlpatterns = [
    path("", views.home),
    path("users/<int:pk>/", views.user_detail, name="user-detail"),
    path("api/", include("api.urls")),
]
"""


def test_django_url_patterns() -> None:
    symbols = index_text(URLS, "shop/urls.py")
    assert [(s.entity, s.name_range) for s in symbols if s.kind == "route"] == [
        ("route/ANY /", span(URLS, '""')),
        ("route/ANY /users/{pk}", span(URLS, '"users/<int:pk>/"')),
        ("route/ANY /api", span(URLS, '"api/"')),
    ]
    assert [s for s in index_text(URLS, "shop/views.py") if s.kind == "route"] == []
