"""One environment for running git, and Cairn through it, apart from the machine's own
configuration: a fixed identity, no global or system git config, no inherited `GIT_*`
or `CAIRN_*` variable, and no gate daemon started. Tests (tests/real_cli.py) and
benchmarks (bench/) both run real git; bench scripts may not import from tests/, so the
rule lives here, once: a user's hooks, aliases, signing or `CAIRN_DIR` must not change
what they assert or measure, and a CI machine may have no identity at all."""

from __future__ import annotations

import os

__all__ = ["isolated_env"]


def isolated_env(
    name: str = "Ann Example", email: str = "ann@example.com", **extra: str
) -> dict[str, str]:
    """This process's environment without git's or Cairn's settings, with `name` and
    `email` as author and committer, and `extra` on top."""
    out = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "CAIRN_"))}
    out.update(
        GIT_AUTHOR_NAME=name,
        GIT_AUTHOR_EMAIL=email,
        GIT_COMMITTER_NAME=name,
        GIT_COMMITTER_EMAIL=email,
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_CONFIG_NOSYSTEM="1",
        # the Claude Code hook starts a gate daemon for the next edit: none is left behind
        CAIRN_GATE_DAEMON="0",
    )
    out.update(extra)
    return out
