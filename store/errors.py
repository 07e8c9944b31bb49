"""Store errors: each carries a one-line message a user can act on."""

from __future__ import annotations

__all__ = [
    "AmbiguousTarget",
    "KeyReused",
    "LockTimeout",
    "StoreError",
    "UnknownEvent",
    "ValidationError",
]


class StoreError(Exception):
    """Base class: something the caller asked for cannot be done; nothing was written."""


class ValidationError(StoreError, ValueError):
    """A draft or argument is malformed (empty reasoning, unknown type, bad date...)."""


class UnknownEvent(StoreError, LookupError):
    """No event has this id (or id prefix)."""


class AmbiguousTarget(StoreError):
    """An id prefix or an implicit target matches several events (or none); lists them."""

    def __init__(self, message: str, candidates: list[str] | None = None) -> None:
        super().__init__(message)
        self.candidates = list(candidates or [])


class KeyReused(ValidationError):
    """An idempotency key already names an event with different content."""


class LockTimeout(StoreError):
    """Another process held the log's write lock for too long."""
