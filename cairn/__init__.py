"""Cairn: decision memory for code (see README.md and docs/)."""

__version__ = "0.1.0"
