"""Lock files' pins: which dependency, at which exact version, one lock-file line names.

A lock file (`Gemfile.lock`, `yarn.lock`, `package-lock.json`, `go.sum`, …) is no
manifest the indexer reads: it is written by a tool, and its lines carry no symbol. A
revert of a dependency bump that only touched the lock file still takes one version of
one dependency back (rubygems.org's `Revert "Bump ddtrace from 1.15.0 to 1.16.0"`), and
that verdict is recorded on `deps/NAME` with the lock lines as its fingerprint
(`cairn.importers.git_lockdeps`). The gate places those lines on the same entity (a
one-line bring-back counts only inside the reverted entity: `cairn.fingerprints`), and
both read a line through `pin` here, the one rule for it.

Only the forms where one line names both the dependency and its exact version are read:
Bundler's `    name (1.2.3)`, Go's `module v1.2.3 h1:…`, an npm registry tarball URL
(`…/name/-/name-1.2.3.tgz`, in `yarn.lock` and `package-lock.json`) and pnpm's
`/name@1.2.3:` keys. Lock files that put the name and the version on separate lines
(`poetry.lock`, `Cargo.lock`, `composer.lock`, `Pipfile.lock`) give no pin: a verdict
read from them would be a guess about which stanza a changed version line is in.
"""

from __future__ import annotations

import re

from cairn.store.paths import EntityPathError, dependency_path

__all__ = ["dependency", "pin"]

# Bundler: a spec with its exact version (`    rack (2.2.3)`, `    nokogiri (1.13.0-x86_64-linux)`);
# a constraint (`      rack (~> 2.0)`, `  rack (>= 1)`) is no pin.
_GEM = re.compile(r"^\s+([A-Za-z0-9][\w.-]*) \((?:= ?)?(\d[\w.]*)(?:-[\w.-]+)?\)\s*$")
# Go: `golang.org/x/net v0.17.0 h1:…` and `… v0.17.0/go.mod h1:…`.
_GO = re.compile(r"^(\S+) v(\d[^\s/]*)(?:/go\.mod)? h1:\S+\s*$")
# npm's registry tarball: `…/@scope/name/-/name-1.2.3.tgz`.
_TARBALL = re.compile(r"/((?:@[^/\s\"]+/)?[^/\s\"@]+)/-/[^/\s\"]+?-(\d[^/\s\"#?]*?)\.tgz\b")
# pnpm: `  /name/1.2.3:` (v5), `  /name@1.2.3:` (v6), `  name@1.2.3:` (v9).
_PNPM = re.compile(r"^\s+/?((?:@[^/@\s]+/)?[^/@\s:'\"]+)[@/](\d[^\s:()'\"]*)(?:\([^:]*\))?:\s*$")


def pin(path: str, line: str) -> tuple[str, str] | None:
    """(name, exact version) that one line of the lock file `path` pins, or None."""
    name = path.rsplit("/", 1)[-1]
    if name in ("Gemfile.lock", "gems.locked"):
        m = _GEM.match(line)
    elif name == "go.sum":
        m = _GO.match(line)
    elif name == "pnpm-lock.yaml":
        m = _PNPM.match(line) or _TARBALL.search(line)
    elif name in ("yarn.lock", "package-lock.json", "npm-shrinkwrap.json"):
        m = _TARBALL.search(line)
    else:
        return None
    return (m.group(1), m.group(2)) if m else None


def dependency(name: str) -> str | None:
    """`deps/NAME` for a lock file's name, by the one canonicaliser (`delayed_job` and
    `delayed-job` are one entity); None for a name it refuses."""
    try:
        return dependency_path(name)
    except EntityPathError:
        return None
