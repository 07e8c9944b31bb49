"""`.pre-commit-config.yaml`: a hook repository pinned at `rev:` is a dependency named
after the repository (`https://github.com/psf/black` -> `deps/black`)."""

from __future__ import annotations

from cairn.indexer.capture import Capture, FileContext

# repository values that are not repositories: hooks defined in place
_NOT_REPOSITORIES = frozenset({"local", "meta"})


def repository(capture: Capture, ctx: FileContext) -> list[Capture]:
    """The repository URL's last segment (without `.git`) names the dependency."""
    url = capture.name.strip().rstrip("/")
    if url in _NOT_REPOSITORIES or not url:
        return []
    name = url.rsplit("/", 1)[-1].rsplit(":", 1)[-1]
    if name.endswith(".git"):
        name = name[:-4]
    return [capture.but(name=name)] if name else []
