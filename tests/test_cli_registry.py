"""The lazy command table in cairn.cli and the modules that define the commands agree."""

from __future__ import annotations

import subprocess
import sys

import pytest

from cairn.cli import COMMANDS, load_module_commands


@pytest.mark.parametrize("module", sorted(set(COMMANDS.values())))
def test_each_module_registers_exactly_the_commands_the_table_names(module: str) -> None:
    expected = {name for name, owner in COMMANDS.items() if owner == module}
    assert set(load_module_commands(module)) == expected


def test_help_lists_every_command() -> None:
    out = subprocess.run(
        [sys.executable, "-P", "-m", "cairn.cli", "--help"], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    listed = {
        line.split()[0] for line in out.stdout.split("Commands:")[1].splitlines() if line.strip()
    }
    assert listed == set(COMMANDS)


def test_a_command_imports_only_its_own_module() -> None:
    probe = (
        "import sys\n"
        "from cairn.cli import main\n"
        "try:\n"
        "    main(['scan', '--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith(('cairn.lsp', 'cairn.importers'))))\n"
    )
    out = subprocess.run([sys.executable, "-P", "-c", probe], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_unknown_command_is_one_line_and_exit_2() -> None:
    out = subprocess.run(
        [sys.executable, "-P", "-m", "cairn.cli", "frobnicate"], capture_output=True, text=True
    )
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1
    assert "No such command 'frobnicate'" in out.stderr
