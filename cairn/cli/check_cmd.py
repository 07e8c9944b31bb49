"""Placeholder: this area's commands are being written; see docs/architecture.md."""

from __future__ import annotations

import click


def register(group: click.Group) -> None:
    """Add this module's commands to the root group."""
