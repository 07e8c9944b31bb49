"""Reverts that are true history but no decision (issue 28, `cairn.significance`):
comment toggles, accidents, files only reformatted inside a bigger revert, import moves,
and quiet assets (spelling lists, diagrams, design files, editor droppings). Each is
recorded (`history` shows it) with `significance: trivial`, never blocks and never
fills the digest; the real change beside it still blocks. Real git histories, the real
`cairn import git` and `cairn check --diff HEAD`.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from real_cli import blocking, cairn_json, check_diff, commit, env, git

from cairn.store import Store

RELEASE = """\
def release(version):
    build(version)
    sign(version)
    upload_to_pypi(version)
    tag_and_push(version)
    announce_on_the_mailing_list(version)
"""

PRICES = """\
def total(items):
    return sum(item.price for item in items)


def label(item):
    return item.name.title()
"""
SKU = PRICES.replace("item.name.title()", "item.name.title() + ' (' + item.sku + ')'")


def reverts(root: Path) -> dict[str, dict[str, str | None]]:
    """revert subject -> entity -> significance."""
    out: dict[str, dict[str, str | None]] = {}
    with Store.open(root / ".cairn") as store:
        for ent in store.entities():
            for e in store.history(ent):
                if e.type == "revert":
                    subject = str(e.metadata["revert_subject"])
                    out.setdefault(subject, {})[e.entity] = e.metadata.get("significance")
    return out


def put_back(root: Path, files: dict[str, str]) -> tuple[int, dict]:
    """Write `files` over HEAD, `cairn check --diff HEAD`, then take them out again."""
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    git(root, "add", "--", *files)  # new files too (never `.cairn/`: the log stays)
    result = check_diff(root)
    git(root, "reset", "-q", "--", *files)
    for name in files:
        if git(root, "ls-files", "--", name):
            git(root, "checkout", "-q", "--", name)
        else:
            (root / name).unlink()
    return result


def test_a_revert_that_only_toggles_comments_never_blocks(project: Path) -> None:
    commit(project, "Release script", "2024-01-01T10:00:00Z", {"tools/deploy.py": RELEASE})
    steps = ("upload_to_pypi", "tag_and_push", "announce_on_the_mailing_list")
    out = RELEASE
    for step in steps:
        out = out.replace(f"    {step}(", f"    # {step}(")
    commit(project, "Comment out finished steps", "2024-01-02T10:00:00Z", {"tools/deploy.py": out})
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-05T10:00:00Z")  # uncommented
    commit(project, "Prices", "2024-01-06T10:00:00Z", {"shop/prices.py": PRICES})
    commit(project, "Show the SKU", "2024-01-07T10:00:00Z", {"shop/prices.py": SKU})
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-09T10:00:00Z")
    cairn_json(project, "import", "git")
    found = reverts(project)
    toggle = found['Revert "Comment out finished steps"']
    assert toggle and set(toggle.values()) == {"trivial"}, toggle
    assert set(found['Revert "Show the SKU"'].values()) == {None}  # a real undo stays loud
    # Commenting the steps out again: nothing blocks (it is the same switch, flipped).
    code, report = put_back(project, {"tools/deploy.py": out})
    assert code == 0, blocking(report)
    code, report = put_back(project, {"shop/prices.py": SKU})
    assert code == 1 and blocking(report)


def test_an_accidental_commit_taken_back_is_history_not_a_decision(project: Path) -> None:
    commit(project, "Prices", "2024-01-01T10:00:00Z", {"shop/prices.py": PRICES})
    # Pushed by mistake, reverted by the same author three minutes later, no word why.
    commit(project, "Show the SKU", "2024-01-02T10:00:00Z", {"shop/prices.py": SKU})
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-02T10:03:00Z")
    # Days later, but the revert says it went to the wrong branch.
    debug = "def debug(request):\n    return dump_all_settings(request.user)\n"
    commit(project, "Debug view", "2024-02-01T10:00:00Z", {"shop/debug.py": debug})
    git(project, "revert", "--no-commit", "HEAD")
    commit(
        project,
        'Revert "Debug view"\n\nThat was meant for my fork: pushed to the wrong branch.',
        "2024-02-04T10:00:00Z",
        {},
    )
    # The same quick revert with a reason of its own is a decision.
    bulk = PRICES.replace("return sum(item.price", "return sum(item.price * item.quantity")
    commit(project, "Multiply by quantity", "2024-03-01T10:00:00Z", {"shop/prices.py": bulk})
    git(project, "revert", "--no-commit", "HEAD")
    commit(
        project,
        'Revert "Multiply by quantity"\n\nQuantities are already in the price.',
        "2024-03-01T10:10:00Z",
        {},
    )
    cairn_json(project, "import", "git")
    found = reverts(project)
    assert set(found['Revert "Show the SKU"'].values()) == {"trivial"}
    assert set(found['Revert "Debug view"'].values()) == {"trivial"}
    assert set(found['Revert "Multiply by quantity"'].values()) == {None}
    code, report = put_back(project, {"shop/prices.py": SKU, "shop/debug.py": debug})
    assert code == 0, blocking(report)
    code, report = put_back(project, {"shop/prices.py": bulk})
    assert code == 1 and blocking(report)
    # Recorded all the same: `history` shows the accident.
    shown = cairn_json(project, "history", "shop/prices.py::label")
    assert any(e["type"] == "revert" for e in shown)


def test_a_file_only_reformatted_inside_a_real_revert_is_quiet(project: Path) -> None:
    names = "def names(items):\n    return [i.name for i in items]\n"
    shop = {"shop/prices.py": PRICES, "shop/names.py": names}
    commit(project, "Shop", "2024-01-01T10:00:00Z", shop)
    reformatted = (
        "def names(items):\n    return [\n        i.name  # as is\n        for i in items\n    ]\n"
    )
    commit(
        project,
        "Show the SKU",
        "2024-01-02T10:00:00Z",
        {"shop/prices.py": SKU, "shop/names.py": reformatted},
    )
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-04T10:00:00Z")
    cairn_json(project, "import", "git")
    events = reverts(project)['Revert "Show the SKU"']
    quiet = {e for e, s in events.items() if s == "trivial"}
    loud = {e for e, s in events.items() if s is None}
    assert quiet and all(e.startswith("shop/names.py") for e in quiet), events
    assert loud and all(e.startswith("shop/prices.py") for e in loud), events
    code, report = put_back(project, {"shop/names.py": reformatted})
    assert code == 0, blocking(report)
    code, report = put_back(project, {"shop/prices.py": SKU})
    assert code == 1
    assert {f["entity"] for f in blocking(report)} <= loud
    # The digest lists the real undo, not the reformatted file.
    digest = cairn_json(project, "digest", "--paths", "shop/names.py", "--paths", "shop/prices.py")
    said = json.dumps(digest["items"])
    assert "shop/prices.py" in said and "shop/names.py" not in said


def test_a_file_whose_imports_only_followed_a_module_move_is_quiet(project: Path) -> None:
    views = "from shop.core.models import Item\n\n\ndef show(pk):\n    return Item.get(pk)\n"
    moved = views.replace("shop.core.models", "shop.models")
    commit(
        project,
        "Shop",
        "2024-01-01T10:00:00Z",
        {"shop/prices.py": PRICES, "shop/views.py": views, "shop/api.py": views},
    )
    commit(
        project,
        "Move models up; show the SKU",
        "2024-01-02T10:00:00Z",
        {"shop/prices.py": SKU, "shop/views.py": moved, "shop/api.py": moved},
    )
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-04T10:00:00Z")
    cairn_json(project, "import", "git")
    events = reverts(project)['Revert "Move models up; show the SKU"']
    for path in ("shop/views.py", "shop/api.py"):
        assert {s for e, s in events.items() if e.startswith(path)} == {"trivial"}, events
    assert {s for e, s in events.items() if e.startswith("shop/prices.py")} == {None}
    code, report = put_back(project, {"shop/views.py": moved, "shop/api.py": moved})
    assert code == 0, blocking(report)


def test_spelling_lists_diagrams_design_files_editor_droppings_and_ignore_lists_are_quiet(
    project: Path,
) -> None:
    commit(
        project,
        "Shop",
        "2024-01-01T10:00:00Z",
        {"shop/prices.py": PRICES, "cspell.json": '{"words": ["wagtail"]}\n'},
    )
    assets = {
        "cspell.json": '{"words": ["wagtail", "skus", "ternaries"]}\n',
        "docs/spelling_wordlist.txt": "skus\nternaries\n",
        "design/labels.drawio": "<mxfile><diagram>labels with a SKU</diagram></mxfile>\n",
        "design/flow.puml": "@startuml\nLabel -> Sku : show\n@enduml\n",
        "design/labels.sketch": "sketch document with the new label layout\n",
        ".vscode/settings.json": '{"python.analysis.typeCheckingMode": "strict"}\n',
        "shop/.prices.py.swp": "b0VIM 8.2 swap of prices.py with the sku change\n",
        ".npmignore": "tests/\nyarn.lock\n",
        "docs/.gitignore": "_build/\n",
    }
    commit(project, "Show the SKU", "2024-01-02T10:00:00Z", {"shop/prices.py": SKU} | assets)
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-04T10:00:00Z")
    cairn_json(project, "import", "git")
    events = reverts(project)['Revert "Show the SKU"']
    for path in assets:
        hit = {s for e, s in events.items() if e == path or path.startswith(e)}
        assert hit == {"trivial"}, (path, events)
    assert {s for e, s in events.items() if e.startswith("shop/prices.py")} == {None}
    code, report = put_back(project, assets)
    assert code == 0, blocking(report)


def commit_rebased(root: Path, message: str, authored: str, committed: str) -> None:
    """Commit what is staged with an author date apart from the committer date, as a
    rebase leaves them."""
    proc = subprocess.run(
        ["git", "commit", "-q", "--allow-empty", "-F", "-"],
        cwd=root,
        env=env(GIT_AUTHOR_DATE=authored, GIT_COMMITTER_DATE=committed),
        input=message,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr


def test_a_rebased_revert_is_judged_by_author_dates(project: Path) -> None:
    """A rebase gives a change and its revert the same committer date: months apart
    by their authors' dates, that revert is no accident (wagtail's "Removed meta from
    top of listings", rebased together with its revert)."""
    commit(project, "Prices", "2024-01-01T10:00:00Z", {"shop/prices.py": PRICES})
    (project / "shop" / "prices.py").write_text(SKU)
    git(project, "add", "shop/prices.py")
    commit_rebased(project, "Show the SKU", "2024-01-02T10:00:00Z", "2024-06-01T10:00:00Z")
    git(project, "revert", "--no-commit", "HEAD")
    sha = git(project, "rev-parse", "HEAD")
    message = f'Revert "Show the SKU"\n\nThis reverts commit {sha}.\n'
    commit_rebased(project, message, "2024-05-01T10:00:00Z", "2024-06-01T10:00:00Z")
    cairn_json(project, "import", "git")
    assert set(reverts(project)['Revert "Show the SKU"'].values()) == {None}
    code, report = put_back(project, {"shop/prices.py": SKU})
    assert code == 1 and blocking(report)


def test_a_file_deleted_whole_stays_loud_even_if_it_held_only_imports(project: Path) -> None:
    """Per-file cosmetics judge a file that stayed: a test fixture of import lines
    deleted with the feature it tested is that feature's (prettier's "Remove support
    for importReflection")."""
    parser = "def parse(source):\n    return read_imports(source)\n"
    commit(project, "Parser", "2024-01-01T10:00:00Z", {"lang/parser.py": parser})
    fixture = 'import module foo from "foo"\nimport module bar from "bar"\n'
    reflection = parser.replace("read_imports(source)", "read_imports(source, reflect=True)")
    commit(
        project,
        "Support import reflection",
        "2024-01-02T10:00:00Z",
        {"lang/parser.py": reflection, "tests/reflection/modules.js": fixture},
    )
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-05T10:00:00Z")
    cairn_json(project, "import", "git")
    events = reverts(project)['Revert "Support import reflection"']
    assert events.get("tests/reflection/modules.js", "absent") is None, events


URLS_TOP = """\
urlpatterns = patterns('django.contrib.auth.views',
    url(r'^login/$', 'login', {
        'template_name': 'wagtailadmin/login.html',
        'authentication_form': LoginForm,
        'extra_context': {'show_password_reset': password_management_enabled()},
    }),
    url(r'^logout/$', 'logout', {'next_page': 'wagtailadmin_login'}),
)

urlpatterns += patterns('wagtail.wagtailadmin.views',
    url(r'^account/$', 'account.account', name='wagtailadmin_account'),
)
"""
URLS_BOTTOM = """\
urlpatterns = patterns('django.contrib.auth.views',
    url(r'^logout/$', 'logout', {'next_page': 'wagtailadmin_login'}),
)

urlpatterns += patterns('wagtail.wagtailadmin.views',
    url(r'^account/$', 'account.account', name='wagtailadmin_account'),
    url(r'^login/$', 'account.login_wrapper', {
        'template_name': 'wagtailadmin/login.html',
        'authentication_form': LoginForm,
        'extra_context': {'show_password_reset': password_management_enabled()},
    }),
)
"""


def test_lines_re_indented_in_place_bring_nothing_back(project: Path) -> None:
    """A lint pass that re-wraps lines a revert once moved ("Linted wagtailadmin" and
    `Revert "Change login view to the login_wrapper view"`): the lines are taken out
    and put back in the same file, so the change neither brings back what the revert
    took out nor takes out again what it put back. Moving them elsewhere still does."""
    commit(project, "Admin urls", "2024-01-01T10:00:00Z", {"admin/urls.py": URLS_TOP})
    commit(project, "Login wrapper", "2024-01-02T10:00:00Z", {"admin/urls.py": URLS_BOTTOM})
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-04T10:00:00Z")
    cairn_json(project, "import", "git")
    linted = URLS_TOP.replace(
        "    url(r'^login/$', 'login', {\n", "    url(\n        r'^login/$', 'login', {\n"
    )
    linted = linted.replace("        '", "            '").replace(
        "    }),\n    url(r'^logout", "        }\n    ),\n    url(r'^logout"
    )
    assert linted != URLS_TOP
    code, report = put_back(project, {"admin/urls.py": linted})
    assert code == 0, blocking(report)
    code, report = put_back(project, {"admin/urls.py": URLS_BOTTOM})
    assert code == 1 and blocking(report)


# Right-but-trivial reverts that blocked on rubygems.org (the precision set): a planned
# undo ("Temporarily disable pushing" switched back on), a schema dumped from the
# migrations (`db/schema.rb`, written by `db:migrate` like a lock file) and a drawn ERD
# (`doc/erd.dot`). The real decision beside each (a tool given up, a migration) still
# blocks.

PUSH = """\
def create(request):
    gem = Gem.from_upload(request.body)
    gem.validate_owner(request.user)
    gem.save_and_index()
    return created(gem)
"""
# The change reverted by plan: pushing switched off while an incident is handled.
PUSH_OFF = PUSH.replace(
    "    gem = Gem.from_upload",
    "    return unavailable('pushing is disabled')\n    gem = Gem.from_upload",
)
SEARCH = """\
def search(query):
    return Index.default().find(query, limit=30)
"""
# A change that says "temporarily" but switches to something: reverted, a decision.
SEARCH_FAST = SEARCH.replace("Index.default()", "FastIndex.connect(hosts=['search-1'])")


def test_a_revert_of_a_temporary_disable_is_quiet_but_a_temporary_switch_is_not(
    project: Path,
) -> None:
    commit(project, "Push API", "2024-01-01T10:00:00Z", {"api/push.py": PUSH})
    commit(project, "Search", "2024-01-01T11:00:00Z", {"api/search.py": SEARCH})
    commit(
        project, "Temporarily disable pushing", "2024-02-01T10:00:00Z", {"api/push.py": PUSH_OFF}
    )
    git(project, "revert", "--no-edit", "HEAD", date="2024-02-03T10:00:00Z")
    commit(
        project,
        "Temporarily use the FastIndex search cluster",
        "2024-03-01T10:00:00Z",
        {"api/search.py": SEARCH_FAST},
    )
    git(project, "revert", "--no-edit", "HEAD", date="2024-03-09T10:00:00Z")
    cairn_json(project, "import", "git")
    found = reverts(project)
    assert set(found['Revert "Temporarily disable pushing"'].values()) == {"trivial"}, found
    assert set(found['Revert "Temporarily use the FastIndex search cluster"'].values()) == {None}
    code, report = put_back(project, {"api/push.py": PUSH_OFF})
    assert code == 0, blocking(report)
    code, report = put_back(project, {"api/search.py": SEARCH_FAST})
    assert code == 1 and blocking(report)
    # Recorded all the same: `history` shows the switch back on.
    shown = cairn_json(project, "history", "api/push.py::create")
    assert any(e["type"] == "revert" for e in shown)


MIGRATION = """\
class AddMetadataToVersions < ActiveRecord::Migration
  def change
    add_column :versions, :metadata, :hstore, default: {}, null: false
  end
end
"""
SCHEMA = """\
ActiveRecord::Schema.define(version: 20150101000000) do
  create_table "versions", force: :cascade do |t|
    t.string "number"
    t.integer "rubygem_id"
  end
end
"""
SCHEMA_AFTER = SCHEMA.replace("20150101000000", "20150124074536").replace(
    '    t.integer "rubygem_id"\n',
    '    t.integer "rubygem_id"\n    t.hstore "metadata", default: {}, null: false\n',
)
ERD = "digraph versions {\n  versions -> rubygems;\n}\n"
ERD_AFTER = "digraph versions {\n  versions -> rubygems;\n  versions -> metadata;\n}\n"


def test_a_schema_dump_and_a_drawn_erd_follow_the_migration_back_quietly(
    project: Path,
) -> None:
    commit(
        project,
        "Versions",
        "2024-01-01T10:00:00Z",
        {"db/schema.rb": SCHEMA, "doc/erd.dot": ERD, "app/version.rb": "class Version\nend\n"},
    )
    migration = "db/migrate/20150124074536_add_metadata_to_versions.rb"
    commit(
        project,
        "Store gem metadata on versions",
        "2024-02-01T10:00:00Z",
        {migration: MIGRATION, "db/schema.rb": SCHEMA_AFTER, "doc/erd.dot": ERD_AFTER},
    )
    git(project, "revert", "--no-edit", "HEAD", date="2024-02-05T10:00:00Z")
    cairn_json(project, "import", "git")
    events = reverts(project)['Revert "Store gem metadata on versions"']
    quiet = {e for e, s in events.items() if s == "trivial"}
    loud = {e for e, s in events.items() if s is None}
    # The migration is the decision; the dump and the diagram follow it back.
    assert any(e.startswith(migration) for e in loud), events
    assert {"db/schema.rb", "doc/erd.dot"} <= quiet, events
    # No verdict is read from the dump's lines (`versions`, `versions.metadata` came
    # from schema.rb on rubygems.org); only the migration's own entities are loud.
    assert all(e.startswith(migration) or e == "versions.metadata" for e in loud), events
    code, report = put_back(project, {"doc/erd.dot": ERD_AFTER})
    assert code == 0, blocking(report)
    # The dump's line of the column does name the migration's column again: that
    # verdict (the migration's) may speak, the dump's own file never.
    code, report = put_back(project, {"db/schema.rb": SCHEMA_AFTER})
    assert {f["entity"] for f in blocking(report)} <= {"versions.metadata"}, blocking(report)
    code, report = put_back(project, {migration: MIGRATION})
    assert code == 1 and blocking(report)


HELPER = """\
#--
# Copyright 2006 by Chad Fowler, Rich Kilmer, Jim Weirich and others.
# All rights reserved.
#++

class MockGemUi
  def initialize(input = "")
    @input = StringIO.new(input)
    @output = StringIO.new
  end

  def ask(question)
    @output.puts(question)
    @input.gets
  end
end
"""
OURS = """\
# Copyright 2009 Nick Quaranto
class Indexer
  def generate_index(specs)
    specs.group_by(&:name).map { |name, versions| [name, versions.max] }
  end
end
"""
PARSER = """\
module Parser
  def self.parse(text)
    text.split("\\n").map { |line| line.split("=", 2) }.to_h
  end
end
"""


def test_another_projects_code_copied_in_without_a_marker_is_one_quiet_tree(
    project: Path,
) -> None:
    commit(
        project,
        "App",
        "2024-01-01T10:00:00Z",
        {"MIT-LICENSE": "Copyright (c) 2009, Nick Quaranto\n\nPermission is hereby granted\n"},
    )
    # Copied with its authors' notice, beside first-party code with ours.
    copied = {
        "spec/rubygems/mockgemui.rb": HELPER,
        "spec/rubygems/gemutilities.rb": HELPER.replace("MockGemUi", "RubyGemTestCase"),
    }
    commit(
        project,
        "Adding the indexer so it can be reworked",
        "2024-02-01T10:00:00Z",
        copied | {"lib/indexer.rb": OURS, "spec/indexer_spec.rb": "describe Indexer do\nend\n"},
    )
    git(project, "revert", "--no-edit", "HEAD", date="2024-02-09T10:00:00Z")
    # Vendored by its commit's own word, no notice in the files.
    vendored = {"lib/parser/parser.rb": PARSER, "lib/parser/version.rb": "VERSION = '1.3.4'\n"}
    commit(
        project,
        "Vendoring parser 1.3.4 in lib since Heroku is old",
        "2024-03-01T10:00:00Z",
        vendored,
    )
    git(project, "revert", "--no-edit", "HEAD", date="2024-03-09T10:00:00Z")
    cairn_json(project, "import", "git")
    found = reverts(project)
    events = found['Revert "Adding the indexer so it can be reworked"']
    assert events.get("spec/rubygems/") == "trivial", events  # one event, the directory
    assert not any(e.startswith("spec/rubygems/mockgemui.rb") for e in events), events
    assert {s for e, s in events.items() if e.startswith("lib/indexer.rb")} == {None}, events
    events = found['Revert "Vendoring parser 1.3.4 in lib since Heroku is old"']
    # One event on the highest directory wholly of the copy (`lib/` held nothing else).
    assert set(events.values()) == {"trivial"} and all(e.endswith("/") for e in events), events
    code, report = put_back(project, copied | vendored)
    assert code == 0, blocking(report)
    code, report = put_back(project, {"lib/indexer.rb": OURS})
    assert code == 1 and blocking(report)


def test_a_copy_is_told_by_todays_licence_when_the_repository_had_none_then(
    project: Path,
) -> None:
    # No licence yet when the copied helpers came and went (rubygems.org's MIT-LICENSE
    # came a week after): the holders of today's tell them apart.
    copied = {"spec/rubygems/mockgemui.rb": HELPER}
    commit(project, "App", "2024-01-01T10:00:00Z", {"lib/indexer.rb": OURS})
    commit(project, "Adding the helpers", "2024-02-01T10:00:00Z", copied)
    git(project, "revert", "--no-edit", "HEAD", date="2024-02-09T10:00:00Z")
    ours = "# Copyright (c) 2024 Nick Quaranto\n" + OURS
    commit(project, "Our own helper", "2024-02-10T10:00:00Z", {"spec/ours.rb": ours})
    git(project, "revert", "--no-edit", "HEAD", date="2024-02-11T10:00:00Z")
    commit(
        project,
        "Licence",
        "2024-02-16T10:00:00Z",
        {"MIT-LICENSE": "Copyright (c) 2009, Nick Quaranto\n\nPermission is hereby granted\n"},
    )
    cairn_json(project, "import", "git")
    found = reverts(project)
    assert set(found['Revert "Adding the helpers"'].values()) == {"trivial"}, found
    assert set(found['Revert "Our own helper"'].values()) == {None}, found


TRAVIS = """\
language: ruby
rvm:
  - 2.7

script:
  - "echo step # 1"
  - bundle exec rake
"""
PYPROJECT = """\
[project]
name = "shop"

dependencies = ["requests>=2.0"]
"""
REQUIREMENTS = """\
requests==2.31.0

django==4.2.0
"""


@pytest.mark.parametrize(
    ("path", "text", "value"),
    [
        (".travis.yml", TRAVIS, ("bundle exec rake", "bundle exec rake test:all")),
        ("pyproject.toml", PYPROJECT, ('"requests>=2.0"', '"requests>=2.0", "rich"')),
        ("requirements.txt", REQUIREMENTS, ("django==4.2.0", "django==5.0.0")),
    ],
    ids=["yaml", "toml", "requirements"],
)
def test_a_comment_only_edit_of_a_hash_commented_config_taken_back_is_quiet(
    project: Path, path: str, text: str, value: tuple[str, str]
) -> None:
    """rubygems.org's `Trigger rebuild.`: a blank line of `.travis.yml` swapped for a lone
    `#`, and back. YAML, TOML and pip's files are matched as text, but a `#` comment
    there is as cosmetic as one in code; a value changed beside it stays a decision."""
    commit(project, "Config", "2024-01-01T10:00:00Z", {path: text})
    marked = text.replace("\n\n", "\n#\n", 1) + "# rebuild, please\n"
    commit(project, "Trigger CI", "2024-01-02T10:00:00Z", {path: marked})
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-05T10:00:00Z")
    old, new = value
    commit(project, "Try another", "2024-01-06T10:00:00Z", {path: text.replace(old, new)})
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-09T10:00:00Z")
    cairn_json(project, "import", "git")
    found = reverts(project)
    comment = found['Revert "Trigger CI"']
    assert comment and set(comment.values()) == {"trivial"}, comment
    assert set(found['Revert "Try another"'].values()) == {None}


def test_a_hash_inside_a_quoted_yaml_value_is_no_comment(project: Path) -> None:
    """`- "echo step # 1"` is one quoted value: what follows its `#` is the value."""
    commit(project, "Config", "2024-01-01T10:00:00Z", {".travis.yml": TRAVIS})
    step2 = TRAVIS.replace('"echo step # 1"', '"echo step # 2"')
    commit(project, "Second step", "2024-01-02T10:00:00Z", {".travis.yml": step2})
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-05T10:00:00Z")
    # A comment after the value, outside its quotes, is a comment.
    noted = TRAVIS.replace('"echo step # 1"', '"echo step # 1"  # the first one')
    commit(project, "Say which step", "2024-01-06T10:00:00Z", {".travis.yml": noted})
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-09T10:00:00Z")
    cairn_json(project, "import", "git")
    found = reverts(project)
    assert set(found['Revert "Second step"'].values()) == {None}
    assert set(found['Revert "Say which step"'].values()) == {"trivial"}
