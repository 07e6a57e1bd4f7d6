"""What a store refuses, and how a refused value is quoted back: small exception classes inside, dicts at the
tool boundary.

Layer: core, the bottom of the stores; it imports only the standard library. Every rejection says what was wrong
and what the agent should do next, and a call that meets one has written nothing.

Glossary:
  rejection   a tool error: {"error": code, "message": text, ...details}; the code names the kind
  shown       a value as a rejection quotes it back: strict JSON, valid Unicode, cut when long
"""

import json
import math
import unicodedata
from typing import Any, Dict, Iterable, NamedTuple, Optional

SHOWN_VALUE_CHARACTERS = 80  # how much of a bad value a rejection quotes back
SHOWN_INTEGER_BITS = 12_000  # a wider integer is described, not written out (Python refuses past 4,300 digits)


# ---------------------------------------------------------------------------
# Rejections: small exception classes inside, dicts at the tool boundary.


class Rejection(Exception):
    """A tool call the store refuses; becomes {"error": code, "message": ...} at call_tool."""

    code = "rejected"

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details

    def as_result(self) -> Dict[str, Any]:
        """The JSON an agent receives."""
        return {"error": self.code, "message": self.message, **self.details}


class InvalidArguments(Rejection):
    """An argument breaks the tool's inputSchema; the details name the argument, rule and value."""

    code = "invalid_arguments"


class NotFound(Rejection):
    """The resource does not exist, is not granted, or is not visible to agents."""

    code = "not_found"


class VersionConflict(Rejection):
    """expected_version is not the current version: someone saved in between."""

    code = "version_conflict"


class Edited(NamedTuple):
    """What a store's edits change, as its rejections name it: the noun ("article"), the key of its ID in the
    arguments ("article_id"), the key of its version ("updated_at"), the tool that reads it again, and what to do
    with what that read returns."""

    noun: str
    id_key: str
    version_key: str
    read_tool: str
    redo: str

    def conflict(self, subject_id: str, expected: Any) -> VersionConflict:
        """The rejection of an edit whose expected_version is no longer the subject's version."""
        return VersionConflict(
            f"{self.noun} {json.dumps(subject_id)} is not at version {expected}, the expected_version you sent: it "
            "has changed since you read it, or that version was never its; nothing was saved. Call "
            f"{self.read_tool} again, {self.redo}, and edit with its {self.version_key} as expected_version (you "
            "may keep the same idempotency_key).", **{self.id_key: subject_id, "expected_version": expected})


class IdempotencyKeyReused(Rejection):
    """The idempotency key was already used for a different call."""

    code = "idempotency_key_reused"


class Forbidden(Rejection):
    """The caller lacks the OAuth scope this tool needs."""

    code = "forbidden"


class UnsupportedResourceType(Rejection):
    """poll_resource_events was asked for a resource type this store does not serve."""

    code = "unsupported_resource_type"


class UnknownTool(Rejection):
    """No tool has this name."""

    code = "unknown_tool"


class IdTaken(ValueError):
    """People's side: a knowledge base, article, channel or item of this ID exists already (a ValueError, as every
    refusal of a people's method is, so that a caller can tell "already there" from "wrong")."""


class Busy(Rejection):
    """Other writers held the database longer than the busy timeout."""

    code = "busy"


class StorageError(Rejection):
    """sqlite could not read or write the database file (disk I/O, a full disk); nothing was saved."""

    code = "storage_error"


class ReadOnly(Rejection):
    """The database file may not be written: reads work, writes are refused."""

    code = "read_only"


def show(value: Any) -> Any:
    """A bad value as a rejection quotes it: strict JSON, valid Unicode, and cut when long."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > SHOWN_INTEGER_BITS:
        return f"an integer of {value.bit_length()} bits"  # its digits would cost more than they tell
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        try:
            return repr(value)[:SHOWN_VALUE_CHARACTERS].encode("utf-8", "replace").decode("utf-8")
        except (ValueError, RecursionError):
            return f"a {type(value).__name__} that cannot be shown"
    text = text.encode("utf-8", "replace").decode("utf-8")  # a lone surrogate becomes "?"
    value = json.loads(text)
    if len(text) <= SHOWN_VALUE_CHARACTERS:
        return value
    if isinstance(value, str):
        return value[:SHOWN_VALUE_CHARACTERS] + f"… ({len(value)} characters)"
    return text[:SHOWN_VALUE_CHARACTERS] + "…"


def quote(value: Any, *, ascii_only: bool = False) -> str:
    """A value as a message quotes it: its JSON text, cut when long, non-ASCII kept as is.

    ascii_only: non-ASCII escaped (é as \\u00e9), for the messages that have always quoted so: their wording,
    which tests and results compare, stays byte for byte.

    >>> quote("café"), quote("café", ascii_only=True)
    ('"café"', '"caf\\\\u00e9"')
    """
    return json.dumps(show(value), ensure_ascii=ascii_only)


def loggable(value: Any) -> str:
    """A value a client sent, as a log line may hold it: JSON in ASCII, cut, so no character can start a line."""
    return quote(value, ascii_only=True)


def name_of(key: Any) -> str:
    """An argument or field name as a message shows it: cut when long, valid Unicode, whatever was sent."""
    shown = show(key)
    return shown if isinstance(shown, str) else json.dumps(shown)


def resembled(name: Any, names: Iterable[str]) -> Optional[str]:
    """The first of `names` that `name` reads as once case and width are set aside ("Ｓtatus" as "status"), or None:
    what a rejection of an unknown name suggests instead."""
    if not isinstance(name, str) or len(name) > 1_000:  # no argument, field key or label is near so long
        return None
    folded = _folded(name)
    return next((known for known in names if _folded(known) == folded), None)


def _folded(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()
