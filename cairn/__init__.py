"""Cairn: decision memory in the editor."""

# The one place the version is written: pyproject.toml reads it (`dynamic`), so the
# installed metadata agrees, and the servers report it without importlib.metadata,
# which costs a language server's start ~20% of its CPU (docs/performance.md).
__version__ = "0.1.0"
