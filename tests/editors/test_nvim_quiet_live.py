"""The Neovim plugin's `quiet` option changes what the real `cairn serve` shows in real
headless Neovim: with the quiet rule (the default, or `quiet = true`) a column whose
only history is its creation by an imported migration gets no lens and a one-line
hover, while the reverted column and its table keep theirs; with
`quiet = false` every entity with history gets a lens and the full hover card."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from nvim_harness import cairn_binary, run_scenario

SCHEMA = """\
CREATE TABLE users (
  id integer PRIMARY KEY,
  email text NOT NULL,
  email_verified boolean
);
"""
EMAIL = (2, SCHEMA.splitlines()[2].index("email"))  # the `email` column's name
TABLE = (0, SCHEMA.splitlines()[0].index("users"))


def cairn(cwd: Path, *args: str) -> None:
    proc = subprocess.run(
        [cairn_binary(), *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """users and its columns created by an imported migration, then email_verified
    reverted: it and its table deserve attention, the plain columns do not."""
    (tmp_path / "db").mkdir()
    (tmp_path / "db" / "001_users.sql").write_text(SCHEMA)
    cairn(tmp_path, "init")
    cairn(tmp_path, "import", "sql", "db")
    cairn(tmp_path, "revert", "users.email_verified", "-r", "mails bounced for SSO users")
    return tmp_path


def observe(project: Path, quiet: str | None) -> dict[str, object]:
    env = {"CAIRN_NVIM_HOVERS": json.dumps([list(EMAIL), list(TABLE)])}
    if quiet is not None:
        env["CAIRN_NVIM_QUIET"] = quiet
    return run_scenario("quiet", project, file=project / "db" / "001_users.sql", extra_env=env)


@pytest.mark.parametrize("quiet", [None, "true"], ids=["default", "quiet=true"])
def test_quiet_rule_hides_lenses_and_shortens_hovers_of_plain_history(
    project: Path, quiet: str | None
) -> None:
    report = observe(project, quiet)
    assert report["init_options"] == ({"quiet": True} if quiet else None)
    lenses = report["lenses"]
    # The reverted column and its table have a lens; the plain columns have none.
    assert [lens["line"] for lens in lenses] == [0, 3], lenses
    assert "reverted" in lenses[1]["title"]
    email_hover, table_hover = report["hovers"]
    # One line: entity, status, count, the import's add, a history link.
    assert "\n" not in email_hover.strip(), email_hover
    assert "users.email" in email_hover and "active · 1 decision" in email_hover
    assert "email_verified" in table_hover  # the full card names the reverted column


def test_quiet_false_shows_a_lens_and_the_full_card_on_every_entity_with_history(
    project: Path,
) -> None:
    report = observe(project, "false")
    assert report["init_options"] == {"quiet": False}
    lines = sorted({lens["line"] for lens in report["lenses"]})
    assert lines == [0, 1, 2, 3], report["lenses"]  # users, id, email, email_verified
    email_lens = next(lens for lens in report["lenses"] if lens["line"] == 2)
    assert email_lens["title"].startswith("1 decision")
    email_hover, _ = report["hovers"]
    assert "users.email" in email_hover
    assert len(email_hover.strip().splitlines()) > 1, email_hover  # the full card
