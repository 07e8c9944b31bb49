"""docs/first-repository.md, run: every command on the page, in order, in one shell, and
its output compared with what the page says to expect (`…` matches anything)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "first-repository.md"
BIN = Path(sys.executable).parent


@dataclass
class Step:
    command: str
    expected: list[str] | None  # None: a setup command whose output is not shown
    status: int = 0


def steps(markdown: str) -> list[Step]:
    """```sh blocks are setup; ```console blocks are `$ command` + expected output."""
    out: list[Step] = []
    for lang, body in re.findall(r"```(sh|console)\n(.*?)```", markdown, flags=re.S):
        if lang == "sh":
            out += [Step(line, None) for line in body.splitlines() if line.strip()]
            continue
        for line in body.splitlines():
            if line.startswith("$ "):
                command, _, note = line[2:].partition("  # exit ")
                out.append(Step(command, [], int(note) if note else 0))
            else:
                out[-1].expected.append(line)  # type: ignore[union-attr]
    return out


def run(tmp_path: Path, all_steps: list[Step]) -> dict[int, tuple[int, list[str]]]:
    """One shell for the whole page (so `cd` carries over); markers split the output."""
    script = ["exec 2>&1"]
    for n, step in enumerate(all_steps):
        script += [f"echo '@@@ {n}'", step.command, f'echo "@@@ {n} $?"']
    (tmp_path / "gitconfig").write_text(
        "[user]\n\tname = Ada\n\temail = ada@example.org\n[init]\n\tdefaultBranch = main\n"
    )
    env = {
        "PATH": f"{BIN}{os.pathsep}/usr/bin{os.pathsep}/bin",
        "HOME": str(tmp_path),
        "GIT_CONFIG_GLOBAL": str(tmp_path / "gitconfig"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "TERM": "dumb",
        "LANG": "C.UTF-8",
    }
    proc = subprocess.run(
        ["bash", "-c", "\n".join(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    results: dict[int, tuple[int, list[str]]] = {}
    for n, chunk in re.findall(r"@@@ (\d+)\n(.*?)@@@ \1 \d+\n", proc.stdout, flags=re.S):
        status = re.search(rf"@@@ {n} (\d+)\n", proc.stdout)
        assert status is not None
        results[int(n)] = (int(status.group(1)), chunk.splitlines())
    return results


def matches(expected: str, actual: str) -> bool:
    pattern = ".*".join(re.escape(part) for part in expected.rstrip().split("…"))
    return re.fullmatch(pattern, actual.rstrip()) is not None


def test_the_walkthrough_does_what_it_says(tmp_path: Path) -> None:
    all_steps = steps(DOC.read_text(encoding="utf-8"))
    assert sum(s.expected is not None for s in all_steps) >= 15
    results = run(tmp_path, all_steps)
    for n, step in enumerate(all_steps):
        assert n in results, f"never ran: {step.command}"
        status, lines = results[n]
        assert status == step.status, (step.command, status, lines)
        if step.expected is None:
            continue
        assert len(lines) == len(step.expected), (step.command, lines)
        for want, got in zip(step.expected, lines, strict=True):
            assert matches(want, got), (step.command, want, got)


def test_the_readme_links_the_walkthrough_from_its_top() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert readme.index("(docs/first-repository.md)") < readme.index("## How it fits together")
