"""Idempotency: the first result of a keyed write, kept and replayed for the same call.

Layer: core. An idempotency key belongs to (caller, tool, resource): one caller never meets another's keys, nor
its own keys of another resource; the same key with other arguments is refused. Left out on purpose: pruning old
keys (Stripe keeps them 24 hours; a reconstruction run never lives that long).
"""

import hashlib
import json
import sqlite3
from typing import Any, Callable, Dict, Mapping, NamedTuple, Optional

from osfoundry_tools.core.dialect import dialect_of
from osfoundry_tools.core.json_text import encoder
from osfoundry_tools.core.rejections import IdempotencyKeyReused, quote, show
from osfoundry_tools.core.tools import DEFAULT_CALLER, string

# ---------------------------------------------------------------------------
# Idempotency: the first result of a keyed write, replayed for the same call.

IDEMPOTENCY_SCHEMA = """
CREATE TABLE IF NOT EXISTS idempotency_keys (
    caller      TEXT NOT NULL,   -- who sent the key: another caller's keys are another key space
    tool        TEXT NOT NULL,
    resource_id TEXT NOT NULL,   -- the resource the call wrote to
    key         TEXT NOT NULL,
    fingerprint TEXT NOT NULL,   -- sha256 of the call's canonical JSON arguments
    result      TEXT NOT NULL,   -- the first result, replayed with "replay": true
    created_at  TEXT NOT NULL,
    PRIMARY KEY (caller, tool, resource_id, key)
) WITHOUT ROWID;
"""
IDEMPOTENCY_KEY_CHARACTERS = 255
IDEMPOTENCY_KEY = string(1, IDEMPOTENCY_KEY_CHARACTERS, "A fresh unique string for this change, e.g. a UUID.")
# every keyed edit's idempotency_key argument, in every store


class KeyScope(NamedTuple):
    """Where an idempotency key lives: one caller's calls of one tool on one resource (a NamedTuple: every edit
    makes one, and a frozen dataclass takes several times as long to build)."""

    caller: str
    tool: str
    resource_id: str


canonical_json = encoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"))
# json.dumps(arguments, sort_keys=True, ensure_ascii=False, separators=(",", ":")), without building an encoder on
# every call: the same text, so fingerprints stored by earlier versions still match
result_text = encoder()  # json.dumps(result): a first result as the table keeps it


def fingerprint(arguments: Mapping[str, Any]) -> str:
    """A digest of the call's arguments that ignores key order."""
    return digest_of(canonical_json(arguments))


def digest_of(canonical: str) -> str:
    """The fingerprint of arguments whose canonical_json is `canonical`: for a store that writes that text quicker
    than canonical_json can, knowing its arguments' keys."""
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


def idempotent(connection: sqlite3.Connection, scope: KeyScope, arguments: Mapping[str, Any], created_at: str,
               write: Callable[[], Dict[str, Any]], digest: Optional[str] = None,
               text_of: Callable[[Dict[str, Any]], str] = result_text) -> Dict[str, Any]:
    """Inside an open write transaction: replay the stored result for this key, or run `write` and store it.

    digest: the arguments' fingerprint, if the caller already took it; text_of: the result as the table keeps it,
    json.dumps(result) (result_text, or the same text written by a caller that knows the result's shape). A
    rejection raised by `write` escapes and rolls the transaction back, so the key stays free. How the key is held
    while `write` runs is the engine's (Dialect.claim_key): one writer at a time on sqlite, a claimed row on
    PostgreSQL.
    """
    key, digest, dialect = arguments["idempotency_key"], digest or fingerprint(arguments), dialect_of(connection)
    row = dialect.claim_key(connection, scope, key, digest, created_at)
    if row is not None:
        if row["fingerprint"] != digest:
            raise IdempotencyKeyReused(
                f"idempotency_key {quote(key)} was already used for a different {scope.tool} call on "
                f"{quote(scope.resource_id)}; nothing was saved. Use a new key for a new change; reuse a key only "
                "to resend the very same call.",
                idempotency_key=show(key))
        return dict(json.loads(row["result"]), replay=True)
    result = dict(write(), replay=False)
    dialect.keep_key(connection, scope, key, digest, text_of(result), created_at)
    return result


def upgrade_idempotency_keys(connection: sqlite3.Connection, resource_of: Callable[[Dict[str, Any]], Optional[str]],
                             caller: str = DEFAULT_CALLER) -> None:
    """Schema 1 to 2: keys kept per (tool, key) move to (caller, tool, resource); a key whose resource its stored
    result does not tell is dropped (a key only guards retries, which an upgrade outlives)."""
    rows = connection.execute("SELECT tool, key, fingerprint, result, created_at FROM idempotency_keys").fetchall()
    connection.execute("DROP TABLE idempotency_keys")
    connection.execute(IDEMPOTENCY_SCHEMA)
    for row in rows:
        resource = resource_of(json.loads(row["result"]))
        if resource is not None:
            connection.execute("INSERT INTO idempotency_keys VALUES (?, ?, ?, ?, ?, ?, ?)",
                               (caller, row["tool"], resource, row["key"], row["fingerprint"], row["result"],
                                row["created_at"]))
