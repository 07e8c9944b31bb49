"""Django: models are tables, forms/serializers/admin classes are not; migrations
introduce, reference and remove what their operations name, with the importer's naming
rules (one place: `cairn.indexer.frameworks.django`)."""

from __future__ import annotations

from pathlib import Path

from indexer_helpers import entities

from cairn.importers.django import _State as ImportState
from cairn.importers.django import find_migrations, operation_changes, read_migration
from cairn.indexer import index_text

FORMS = """\
from django import forms
from rest_framework import serializers
from django.contrib import admin
from .models import Asset


class AssetForm(forms.ModelForm):
    add_sites = forms.ModelMultipleChoiceField(queryset=None)
    name = forms.CharField(max_length=64)

    class Meta:
        model = Asset
        fields = ["name"]


class ContactForm(forms.Form):
    email = forms.EmailField()


class AssetSerializer(serializers.ModelSerializer):
    owner = serializers.CharField()


class AssetAdmin(admin.ModelAdmin):
    list_filter = models.CharField()


class AssetInline(admin.TabularInline):
    extra = models.IntegerField()
"""


def test_forms_serializers_and_admin_classes_have_no_table() -> None:
    for path in ("inventory/forms.py", "inventory/models.py", "inventory/admin.py"):
        found = entities(index_text(FORMS, path))
        assert not [e for e in found if e[1] in ("table", "column")], path


MODELS = """\
from django.contrib.auth.models import AbstractUser
from django.db import models
from wagtail.models import Page


class Asset(TimeStampedModel):
    name = models.CharField(max_length=64)
    site = models.ForeignKey("Site", on_delete=models.CASCADE)
    tags = models.ManyToManyField("Tag")


class Person(AbstractUser):
    nickname = models.CharField(max_length=30)


class BlogPage(Page):
    body = models.TextField()


class Base(models.Model):
    created = models.DateTimeField()

    class Meta:
        abstract = True
"""


def test_model_bases_beyond_models_model() -> None:
    columns = [
        e[0] for e in entities(index_text(MODELS, "inventory/models.py")) if e[1] == "column"
    ]
    assert columns == [
        "inventory_asset.name",
        "inventory_asset.site_id",
        "inventory_person.nickname",
        "inventory_blogpage.body",
    ]
    # outside a models module an unknown base is no evidence of a model
    elsewhere = entities(index_text(MODELS, "inventory/pages.py"))
    assert "inventory_blogpage.body" not in {e[0] for e in elsewhere}
    assert "inventory_asset.name" in {e[0] for e in elsewhere}


MIGRATION = """\
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("shop", "0001_initial")]

    operations = [
        migrations.CreateModel(
            name="Order",
            fields=[
                ("id", models.AutoField(primary_key=True)),
                ("customer", models.ForeignKey(on_delete=models.CASCADE, to="shop.customer")),
                ("tags", models.ManyToManyField(to="shop.tag")),
                ("note", models.TextField(db_column="remark")),
            ],
        ),
        migrations.CreateModel(
            name="Archive",
            fields=[("id", models.AutoField(primary_key=True))],
            options={"db_table": "archives"},
        ),
        migrations.CreateModel(
            name="Legacy", fields=[("id", models.AutoField())], options={"managed": False}
        ),
        migrations.AddField(
            model_name="user",
            name="email_verified",
            field=models.BooleanField(default=False),
        ),
        migrations.AddField("user", "team", models.ForeignKey("shop.team", models.CASCADE)),
        migrations.RemoveField(model_name="user", name="legacy"),
        migrations.AlterField(
            model_name="user", name="email", field=models.EmailField(max_length=300)
        ),
        migrations.RenameField(model_name="user", old_name="nick", new_name="nickname"),
        migrations.DeleteModel(name="Coupon"),
        migrations.RenameModel(old_name="Cart", new_name="Basket"),
        migrations.AlterModelTable(name="Basket", table="baskets"),
        migrations.AddIndex(
            model_name="user", index=models.Index(fields=["email"], name="user_email_idx")
        ),
        migrations.AlterUniqueTogether(name="user", unique_together={("email", "org")}),
        migrations.RunPython(migrations.RunPython.noop),
    ]
"""


def test_migration_operations_are_indexed_with_their_roles() -> None:
    found = [
        e for e in entities(index_text(MIGRATION, "shop/migrations/0002_orders.py"))
        if e[1] in ("table", "column")
    ]  # fmt: skip
    assert found == [
        ("shop_order", "table", "introduce"),
        ("shop_order.id", "column", "introduce"),
        ("shop_order.customer_id", "column", "introduce"),
        ("shop_order.remark", "column", "introduce"),
        ("archives", "table", "introduce"),
        ("archives.id", "column", "introduce"),
        ("shop_user.email_verified", "column", "introduce"),
        ("shop_user.team_id", "column", "introduce"),
        ("shop_user.legacy", "column", "remove"),
        ("shop_user.email", "column", "reference"),
        ("shop_user.nick", "column", "remove"),
        ("shop_user.nickname", "column", "introduce"),
        ("shop_coupon", "table", "remove"),
        ("shop_cart", "table", "remove"),
        ("shop_basket", "table", "introduce"),
        ("shop_basket", "table", "remove"),
        ("baskets", "table", "introduce"),
        ("shop_user", "table", "reference"),
        ("shop_user.email", "column", "reference"),
        ("shop_user", "table", "reference"),
    ]
    # the same text outside a migrations folder, or under another name, is not read
    assert not [
        e for e in entities(index_text(MIGRATION, "shop/0002_orders.py")) if e[1] == "table"
    ]
    assert not [
        e for e in entities(index_text(MIGRATION, "shop/migrations/helpers.py")) if e[1] == "table"
    ]


def test_indexer_and_importer_name_the_same_entities(tmp_path: Path) -> None:
    """The importer's rules are the indexer's: every table and column the importer
    reads from a migration (added, created, removed, deleted) the indexer names too."""
    path = tmp_path / "shop" / "migrations" / "0002_orders.py"
    path.parent.mkdir(parents=True)
    path.write_text(MIGRATION)
    [found] = find_migrations([tmp_path])
    migration = read_migration(found)
    assert not isinstance(migration, type(None))
    changes, _ = operation_changes(migration, ImportState())  # type: ignore[arg-type]
    role = {"add": "introduce", "create": "introduce", "remove": "remove", "delete": "remove"}
    imported = {(c.entity, role[c.type]) for c in changes if c.type in role}
    indexed = {
        (e[0], e[2]) for e in entities(index_text(MIGRATION, "shop/migrations/0002_orders.py"))
    }
    assert imported and imported <= indexed
