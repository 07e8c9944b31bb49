"""A hand-made revert that moves code back (issue 28, unmarked reverts): psf/requests'
"Reverted hooks from sub-package to module." deleted a `hooks/` package whose side
files held only docstrings, put back blob for blob, while the code it took out had been
edited since. Matching on those docstring files named a commit whose undo no check
could see; the revert is matched on lines that carry meaning instead
(`git_reverts.meaningful`), and putting the package back blocks. Real git history, the
real `cairn import git` and `cairn check --diff HEAD`.
"""

from __future__ import annotations

import json
from pathlib import Path

from real_cli import cairn, cairn_json, commit, git

MODULE = '''\
"""shop.hooks: what runs around a request."""


def dispatch(key, hooks, data):
    for hook in hooks.get(key, []):
        data = hook(data) or data
    return data
'''
PACKAGE = '''\
"""shop.hooks: what runs around a request."""

from shop import config


def setup_hooks(supplied):
    default = config.settings.default_hooks
    dispatching = dict((k, list(v)) for k, v in default.items())
    for name, values in supplied.items():
        dispatching[name].extend(values if isinstance(values, list) else [values])
    return dispatching


def dispatch(key, hooks, data):
    for hook in hooks.get(key, []):
        data = hook(data) or data
    return data
'''
RESPONSE = '''\
"""shop.hooks.response: hooks on a response."""


def decode_encoding(response):
    encoding = response.headers.get("content-encoding", "identity")
    response.body = decoders[encoding](response.body)
    return response
'''
EDITED = (
    RESPONSE
    + """

def decode_unicode(response):
    response.text = response.body.decode(response.encoding or "utf-8", "replace")
    return response
"""
)
DOC_ONLY = (
    '"""shop.hooks.{0}\n~~~~~~~~~~~~~~~~\n\nThis module provides a collection of {0} hooks.\n"""\n'
)


def test_a_move_back_is_matched_by_its_code_not_by_docstring_files(project: Path) -> None:
    commit(project, "Hooks", "2024-01-01T10:00:00Z", {"shop/hooks.py": MODULE})
    commit(
        project,
        "Hooks is a package now",
        "2024-01-02T10:00:00Z",
        {"shop/hooks.py": None, "shop/hooks/__init__.py": PACKAGE},
    )
    commit(
        project,
        "Forgot to add the hooks sub-package",
        "2024-01-02T10:05:00Z",
        {
            "shop/hooks/args.py": DOC_ONLY.format("args"),
            "shop/hooks/pre_request.py": DOC_ONLY.format("pre_request"),
            "shop/hooks/response.py": RESPONSE,
        },
    )
    commit(
        project, "Decode unicode too", "2024-01-03T10:00:00Z", {"shop/hooks/response.py": EDITED}
    )
    package = {
        "shop/hooks/__init__.py": PACKAGE,
        "shop/hooks/args.py": DOC_ONLY.format("args"),
        "shop/hooks/pre_request.py": DOC_ONLY.format("pre_request"),
        "shop/hooks/response.py": EDITED,
    }
    moved_back = MODULE + "\n\n" + EDITED.split('"""\n', 2)[-1]
    commit(
        project,
        "Reverted hooks from sub-package to module.",
        "2024-01-05T10:00:00Z",
        {"shop/hooks.py": moved_back} | dict.fromkeys(package),
    )
    cairn_json(project, "import", "git")
    # The revert's verdicts carry prints of code, not only of docstring files.
    events = [json.loads(line) for line in (project / ".cairn" / "decisions.jsonl").open()]
    mine = [e for e in events if e.get("type") == "revert"]
    assert mine and any(e["metadata"].get("fingerprint") for e in mine), mine
    assert not any(e["entity"].endswith(("args.py", "pre_request.py")) for e in mine), mine
    # Putting the package back (and the module away) re-introduces what was reverted.
    for name, text in package.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text)
    (project / "shop/hooks.py").unlink()
    git(project, "add", "-A", "shop")
    proc = cairn(project, "check", "--diff", "HEAD", "--json")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert any(f["blocking"] for f in json.loads(proc.stdout)["findings"])


def test_meaningful_lines_leave_out_docstrings_comments_and_imports() -> None:
    from cairn.importers.git_reverts import meaningful

    lines = dict(enumerate(DOC_ONLY.format("args").splitlines() + PACKAGE.splitlines(), start=1))
    kept = [t for t in meaningful(lines, "shop/hooks/__init__.py") if t.strip()]
    assert "def setup_hooks(supplied):" in kept
    # The multi-line docstring and the import say nothing; the code does.
    assert not any("collection of" in t or t.startswith("from ") for t in kept), kept
    # A file that is not code keeps every line.
    assert meaningful({1: "# Title", 2: "text"}, "README.md") == ["# Title", "text"]
