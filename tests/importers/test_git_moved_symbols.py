"""A symbol a revert only moved gets no verdict from it (labelled wrong-entity on
rubygems.org d2d48409): taking out `to_xml` moved `as_json`, its text byte for byte the
same, from above `to_yaml` to below it, and the diff showed its lines taken out. The
method taken out keeps its verdict, and so does one that moved and changed. Real git
histories and the real `cairn import git`.
"""

from __future__ import annotations

from pathlib import Path

from real_cli import cairn_json, commit, git

from cairn.store import Store

AS_JSON = """\
  def as_json(options = {})
    payload
  end
"""
TO_YAML = """\
  def to_yaml(*args)
    payload.to_yaml(*args)
  end
"""
TO_XML = """\
  def to_xml(options = {})
    payload.to_xml(options.merge(:root => 'web_hook'))
  end
"""


def web_hook(*methods: str) -> str:
    return "class WebHook < ActiveRecord::Base\n" + "\n".join(methods) + "end\n"


def reverted_entities(root: Path) -> set[str]:
    with Store.open(root / ".cairn") as store:
        return {
            e.entity for ent in store.entities() for e in store.history(ent) if e.type == "revert"
        }


def test_a_method_the_revert_only_moved_gets_no_verdict(project: Path) -> None:
    path = "app/models/web_hook.rb"
    commit(project, "Web hooks", "2024-01-01T10:00:00Z", {path: web_hook(TO_YAML, AS_JSON)})
    # The commit reverted moved as_json up, unchanged, and added to_xml below it.
    commit(
        project,
        "Add to_xml",
        "2024-01-02T10:00:00Z",
        {path: web_hook(AS_JSON, TO_XML, TO_YAML)},
    )
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-03T10:00:00Z")
    diff = git(project, "show", "HEAD", "--", path)
    assert "-  def as_json" in diff and "+  def as_json" in diff  # the diff shows it moved
    cairn_json(project, "import", "git")
    entities = reverted_entities(project)
    assert f"{path}::WebHook.to_xml" in entities
    assert f"{path}::WebHook.as_json" not in entities


def test_a_method_the_revert_moved_and_changed_keeps_its_verdict(project: Path) -> None:
    path = "app/models/web_hook.rb"
    commit(project, "Web hooks", "2024-01-01T10:00:00Z", {path: web_hook(TO_YAML, AS_JSON)})
    changed = AS_JSON.replace("    payload\n", "    payload.merge('id' => id)\n")
    commit(
        project,
        "Add to_xml",
        "2024-01-02T10:00:00Z",
        {path: web_hook(changed, TO_XML, TO_YAML)},
    )
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-03T10:00:00Z")
    cairn_json(project, "import", "git")
    entities = reverted_entities(project)
    assert {f"{path}::WebHook.to_xml", f"{path}::WebHook.as_json"} <= entities


def test_a_method_moved_unchanged_into_another_class_keeps_its_verdict(project: Path) -> None:
    """Same text, another declaration (`Hook.as_json` is not `WebHook.as_json`): the
    revert took the method out of the class it names."""
    path = "app/models/web_hook.rb"

    def hook(*methods: str) -> str:
        return "\nclass Hook\n" + "\n".join(methods) + "end\n"

    commit(project, "Hooks", "2024-01-01T10:00:00Z", {path: web_hook(TO_YAML) + hook(TO_XML)})
    commit(
        project,
        "as_json on web hooks",
        "2024-01-02T10:00:00Z",
        {path: web_hook(AS_JSON, TO_YAML) + hook(TO_XML)},
    )
    commit(
        project,
        "as_json on every hook",
        "2024-01-03T10:00:00Z",
        {path: web_hook(TO_YAML) + hook(AS_JSON, TO_XML)},
    )
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-04T10:00:00Z")
    diff = git(project, "show", "HEAD", "--", path)
    assert "-  def as_json" in diff and "+  def as_json" in diff  # the same text, moved
    cairn_json(project, "import", "git")
    assert f"{path}::Hook.as_json" in reverted_entities(project)


def test_a_function_moved_back_by_a_revert_that_put_lines_back_gets_no_verdict(
    project: Path,
) -> None:
    """The lines a revert put back are placed too when it mostly restored (a re-removal
    print); a function it only moved back is not among them."""
    path = "shop/prices.py"
    total = "def total(items):\n    return sum(item.price for item in items)\n"
    label = "def label(item):\n    return item.name.title()\n"
    refund = "".join(
        f"def refund_{n}(order):\n    order.refund(order.lines[{n}], reason='returned')\n\n\n"
        for n in range(6)
    )
    commit(project, "Prices", "2024-01-01T10:00:00Z", {path: f"{label}\n\n{refund}{total}"})
    # Refunds dropped, and total moved above label on the way (the diff of the revert
    # shows total's lines taken out and put back: label's it keeps).
    commit(project, "Drop refunds", "2024-01-02T10:00:00Z", {path: f"{total}\n\n{label}"})
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-03T10:00:00Z")
    diff = git(project, "show", "HEAD", "--", path)
    assert "-def total" in diff and "+def total" in diff
    cairn_json(project, "import", "git")
    entities = reverted_entities(project)
    assert f"{path}::refund_0" in entities  # what the revert put back: a re-removal print
    assert f"{path}::total" not in entities
