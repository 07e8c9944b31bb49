"""The README is a landing page and the reference lives in docs/: every relative link in
them (and in the editors' READMEs) must reach a file, and every `#anchor` a heading of
that file, so moving a section cannot silently break the way to it."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LINK = re.compile(r"\]\(([^)\s]+)\)|<img src=\"([^\"]+)\"")


def pages() -> list[Path]:
    found = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    found += sorted((REPO / "editors").glob("*/README.md"))
    return found


def slug(heading: str) -> str:
    # GitHub's rule: lower case, drop punctuation but hyphens, spaces become hyphens.
    text = heading.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    out: set[str] = set()
    fence = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fence = not fence
        if fence:
            continue
        m = re.match(r"^#{1,6} (.*)$", line)
        if not m:
            continue
        base = slug(m.group(1))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def links(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", "", text, flags=re.S)  # examples are not links
    text = re.sub(r"`[^`\n]*`", "", text)  # nor is link syntax quoted in code
    return [a or b for a, b in LINK.findall(text)]


def test_every_relative_link_and_anchor_resolves() -> None:
    broken = []
    for page in pages():
        for target in links(page):
            if re.match(r"^[a-z]+:", target):
                continue  # https:, mailto:
            file_part, _, anchor = target.partition("#")
            dest = (page.parent / file_part).resolve() if file_part else page
            if not dest.exists():
                broken.append(f"{page.relative_to(REPO)}: {target} (no such file)")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                broken.append(f"{page.relative_to(REPO)}: {target} (no such heading)")
    assert not broken, "\n".join(broken)


def test_the_readme_is_a_landing_page_that_links_every_guide() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) < 300  # the reference sections live in docs/
    assert "make demo" in readme and "make test" in readme
    linked = {t.partition("#")[0] for t in links(REPO / "README.md")}
    for doc in sorted((REPO / "docs").glob("*.md")):
        assert f"docs/{doc.name}" in linked, f"README does not link {doc.name}"
    assert "docs/development.md#dependencies-and-why-these" in readme


def test_slugs_follow_githubs_rule() -> None:
    assert slug("`cairn check`: a gate for CI, pre-commit and agents") == (
        "cairn-check-a-gate-for-ci-pre-commit-and-agents"
    )
    assert slug("Recall on real histories: `bench/recall.py`") == (
        "recall-on-real-histories-benchrecallpy"
    )
    assert slug("Dependencies, and why these") == "dependencies-and-why-these"
