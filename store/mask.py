"""Masking secrets in an event before it is written: every field that is not shaped
(`SHAPED_FIELDS`, from the event's declaration in `cairn.store.fields`) has the secrets
in its text replaced by a marker, and an entity path holding one is refused."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from cairn.store.fields import SHAPED_FIELDS
from cairn.store.secrets import mask_secrets, might_hold_secret

__all__ = ["SHAPED_FIELDS", "mask_event", "mask_fields", "mask_strings", "path_refusal"]


def path_refusal(*paths: str) -> str:
    """Why an entity path is refused, or "": one that holds a credential is refused, not
    masked (a masked path would be a different entity). Both the path as given and its
    canonical form are checked: canonicalising can hide a URL (`//` folds to `/`)."""
    for path in paths:
        kinds = _secret_kinds_in_path(path)
        if kinds:
            return (
                f"the entity path looks like it holds a secret ({', '.join(kinds)}); "
                "name the thing the decision is about, not its credential"
            )
    return ""


@lru_cache(maxsize=1 << 16)
def _secret_kinds_in_path(path: str) -> tuple[str, ...]:
    """Kinds of secret in an entity path (a bulk load names each entity many times)."""
    if not might_hold_secret(path):
        return ()
    return tuple(mask_secrets(path)[1])


def mask_event(
    header: dict[str, Any], content: dict[str, Any], masked: list[str]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """`mask_fields` of both halves of an event, screened once for the whole event.

    Screening every field apart was a sixth of a bulk load. The screen of the fields'
    texts joined is never weaker than each field's own (a marker or an assignment in one
    field is in the joined text too), so when it finds nothing no field can change.
    A field holding more than text (metadata) takes the full walk.
    """
    texts = []
    for fields in (header, content):
        for name, value in fields.items():
            if not value or name in SHAPED_FIELDS:
                continue
            if type(value) is not str:
                return mask_fields(header, masked), mask_fields(content, masked)
            texts.append(value)
    if not might_hold_secret("\n".join(texts)):
        return header, content
    return mask_fields(header, masked), mask_fields(content, masked)


def mask_fields(fields: dict[str, Any], masked: list[str]) -> dict[str, Any]:
    """`fields` with every string in every field not in SHAPED_FIELDS masked (a copy)."""
    return {
        name: value if name in SHAPED_FIELDS else mask_strings(value, masked)
        for name, value in fields.items()
    }


def _masked(value: str, masked: list[str]) -> str:
    """`value` with its secrets masked; the kinds found are added to `masked`."""
    if not value:
        return value
    if len(value) <= 256:  # labels (author, agent, session) repeat across a bulk load
        value, kinds = _mask_short(value)
    elif might_hold_secret(value):
        value, found = mask_secrets(value)
        kinds = tuple(found)
    else:
        return value
    masked.extend(k for k in kinds if k not in masked)
    return value


@lru_cache(maxsize=4096)
def _mask_short(value: str) -> tuple[str, tuple[str, ...]]:
    if not might_hold_secret(value):
        return value, ()
    text, kinds = mask_secrets(value)
    return text, tuple(kinds)


def mask_strings(value: Any, masked: list[str]) -> Any:
    """`value` with every string inside it masked (a copy: the caller's draft is kept)."""
    if isinstance(value, str):
        return _masked(value, masked)
    if isinstance(value, dict):
        # Keys too: a metadata key is text that reaches the log like any other.
        return {mask_strings(k, masked): mask_strings(v, masked) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [mask_strings(v, masked) for v in value]
    return value
