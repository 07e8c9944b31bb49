"""Line parsers for the manifests that have no tree-sitter grammar wheel.

`requirements*.txt`, `go.mod` and Dockerfiles are line-oriented formats with a tiny
grammar for what we read (pip's requirement lines; Go's `require` directives; `FROM
image:tag` and `RUN pip install pkg==x`), so a few lines of Python read them exactly,
with no extra dependency to ship or keep in step. Each dependency carries its declared
version or constraint (`Symbol.version`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from cairn.indexer.frameworks import pep508
from cairn.indexer.model import Range, Role, Symbol
from cairn.store.paths import EntityPathError, dependency_path

_TOKEN = re.compile(r"\S+")
# pip options that take a value: the value is no requirement
_PIP_VALUE_OPTIONS = frozenset(
    {
        "-r", "--requirement", "-c", "--constraint", "-e", "--editable", "-i",
        "--index-url", "--extra-index-url", "-f", "--find-links", "-t", "--target",
        "--prefix", "--root", "--platform", "--python-version", "--implementation",
        "--abi", "--only-binary", "--no-binary", "--src", "--upgrade-strategy",
        "--progress-bar", "--cache-dir", "--log", "--trusted-host", "--proxy", "--timeout",
    }
)  # fmt: skip
_SHELL_SEPARATORS = frozenset({"&&", "||", ";", "|", "&"})
_EGG = re.compile(r"#egg=([A-Za-z0-9][A-Za-z0-9._-]*)")
_GO_REQUIRE = re.compile(r"^(\s*)(?:require\s+)?(\S+)\s+(v\S+)")


def requirements(file: str, text: str) -> list[Symbol]:
    """Each requirement line of a pip requirements file -> `deps/name` (introduce)."""
    out: list[Symbol] = []
    for row, line in enumerate(text.splitlines()):
        body = line.split(" #", 1)[0].rstrip().rstrip("\\").rstrip()
        stripped = body.lstrip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("-"):  # options, -r includes, -e editable: name only via #egg=
            egg = _EGG.search(line)
            if egg:
                out.extend(_dep(file, row, line, egg.start(1), egg.group(1), len(body)))
            continue
        egg = _EGG.search(line)
        if "://" in stripped and egg:
            out.extend(_dep(file, row, line, egg.start(1), egg.group(1), len(body)))
            continue
        found = pep508.split(stripped)
        if found:
            start = len(body) - len(stripped)
            name, version = found
            out.extend(_dep(file, row, line, start, name, len(body), version))
    return out


def go_mod(file: str, text: str) -> list[Symbol]:
    """Each module in a go.mod `require` directive or block -> `deps/module` (introduce)."""
    out: list[Symbol] = []
    in_block = False
    for row, line in enumerate(text.splitlines()):
        code = line.split("//", 1)[0].rstrip()
        stripped = code.strip()
        if in_block:
            if stripped == ")":
                in_block = False
                continue
        elif stripped.startswith("require") and stripped.endswith("("):
            in_block = True
            continue
        elif not stripped.startswith("require "):
            continue
        match = _GO_REQUIRE.match(code)
        if match:
            start = match.start(2)
            out.extend(_dep(file, row, line, start, match.group(2), len(code), match.group(3)))
    return out


def dockerfile(file: str, text: str) -> list[Symbol]:
    """`FROM image:tag` -> `deps/image` at `tag` (stages, `scratch` and `$ARG` images
    name nothing); `RUN pip install pkg==x` -> `deps/pkg` at `==x`."""
    out: list[Symbol] = []
    stages: set[str] = set()
    continued = False
    pip = 0  # 0: no pip command; 1: saw `pip`; 2: after `pip install`; 3: skip a value
    for row, line in enumerate(text.splitlines()):
        stripped = line.strip()
        if stripped.startswith("#"):
            continue  # comments are allowed even inside a continued instruction
        tokens = [(m.start(), m.group(0)) for m in _TOKEN.finditer(line)]
        instruction = ""
        if not continued and tokens:
            instruction = tokens[0][1].upper()
            tokens = tokens[1:]
            pip = 0
            if instruction == "FROM":
                out.extend(_from_image(file, row, line, tokens, stages))
        continued = line.rstrip().endswith("\\")
        if instruction not in ("", "RUN") or (not instruction and pip == -1):
            pip = -1  # inside another instruction's continuation
            continue
        if pip == -1:
            continue
        for start, raw in tokens:
            token = raw.rstrip(";")
            if token in _SHELL_SEPARATORS or (raw.endswith(";") and pip):
                pip = 0
                continue
            word = token.strip("\"'")
            if pip == 0:
                if re.fullmatch(r"pip[0-9.]*", word.rsplit("/", 1)[-1]):
                    pip = 1
            elif pip == 1:
                pip = 2 if word == "install" else (1 if word.startswith("-") else 0)
            elif pip == 3:
                pip = 2
            elif word.startswith("-"):
                if word.split("=", 1)[0] in _PIP_VALUE_OPTIONS and "=" not in word:
                    pip = 3
            elif (
                word
                and word != "\\"
                and not any(c in word for c in "/$*")
                and not (word.endswith((".whl", ".tar.gz", ".zip")))
            ):
                found = pep508.split(word)
                if found:
                    offset = start + (len(raw) - len(raw.lstrip("\"'")))
                    name, version = found
                    out.extend(_dep(file, row, line, offset, name, offset + len(word), version))
    return out


def _from_image(
    file: str, row: int, line: str, tokens: list[tuple[int, str]], stages: set[str]
) -> Iterator[Symbol]:
    words = [(start, word) for start, word in tokens if not word.startswith("--")]
    if not words:
        return
    start, image = words[0]
    if len(words) >= 3 and words[1][1].upper() == "AS":
        stages.add(words[2][1].lower())
    reference, _, digest = image.partition("@")
    name, version = reference, ""
    slash = reference.rfind("/")
    colon = reference.rfind(":")
    if colon > slash:
        name, version = reference[:colon], reference[colon + 1 :]
    if not version and digest:
        version = "@" + digest
    lowered = name.lower()
    if not name or "$" in image or lowered == "scratch" or lowered in stages:
        return
    for prefix in ("docker.io/library/", "docker.io/", "library/"):
        if lowered.startswith(prefix) and lowered != prefix:
            skip = len(prefix)
            start, name = start + skip, name[skip:]
            break
    yield from _dep(file, row, line, start, name, len(line.rstrip()), version)


def _dep(
    file: str, row: int, line: str, start: int, name: str, end: int, version: str = ""
) -> Iterator[Symbol]:
    try:
        entity = dependency_path(name)
    except EntityPathError:
        return
    indent = len(line) - len(line.lstrip())
    yield Symbol(
        file=file,
        entity=entity,
        kind="dependency",
        role=Role.INTRODUCE,
        name_range=Range(row, _utf16(line, start), row, _utf16(line, start + len(name))),
        range=Range(row, _utf16(line, indent), row, _utf16(line, end)),
        version=version,
    )


def _utf16(line: str, index: int) -> int:
    prefix = line[:index]
    if prefix.isascii():
        return len(prefix)
    return len(prefix.encode("utf-16-le", "surrogatepass")) // 2
