"""Bearer tokens for the server's HTTP transport: a file maps each token to the grant of the agent that presents it.

Layer: server, just above the core (whose WRITE_SCOPE it names); the HTTP transport (streamable_http.py)
and the command (`--http HOST:PORT --tokens FILE`) ask it which grant a request's token carries. A grant
lists each store's resources under the key the store declares (its GRANT_KEY: knowledge_bases, channels),
kept by resource type. The file is JSON, an object from each token to its grant:

  {"s3cr3t-token-for-alice": {"caller": "alice", "knowledge_bases": ["kb-support"], "channels": ["bugs"],
                              "scopes": ["osfoundry:write"]},
   "token-for-a-reader":     {"caller": "reader", "knowledge_bases": "*", "channels": "*"},
   "token-for-a-held-agent": {"caller": "bot", "knowledge_bases": "*", "scopes": ["osfoundry:write"],
                              "approve_writes": true}}

It is refused whole, in one line, at the first fault, and unless it belongs to this user (or root) and no
other user may read it. A token never appears in a message, a repr or a log: entries are named by their
position (and their caller, once it is known to be well formed and none of the file's tokens), and only
tokens' digests are kept. The file is read as a regular file of at most MAX_FILE_BYTES (a FIFO, a device or
a larger file is refused before it is read), and any fault of its text, nesting too deep for the parser
included, costs the same one line.

Glossary:
  token     the secret an agent sends as `Authorization: Bearer TOKEN`: 16 to 512 visible ASCII characters, none
            weak (_weakness: too few different characters, a short run repeated, characters in order)
  grant     what a token lets its agent do: its caller, the resources of each store it may use
            ("*": every one; left out of the file: none), its OAuth scopes (none: read only), and whether
            a person must approve each of its writes (approve_writes; as --approve-writes does for every token)
  caller    whose idempotency keys these are; two tokens may share one (a rotation: old and new both work)
  entry     one token and its grant, numbered from 1 in the order the file lists them
  digest    SHA-256 of a token: what is kept and compared, in constant time, against every stored one

Left out on purpose: expiry and revocation (edit the file and restart the server: the file is read once, at
start, and a restart ends every session and listen stream), and any reloading of the file while the server
runs.
"""

import hashlib
import hmac
import json
import os
import re
import shlex
import stat
from typing import (
    AbstractSet, Any, Callable, Dict, FrozenSet, Iterable, List, Mapping, NamedTuple, Optional, Sequence, Tuple,
)

from osfoundry_tools import cli
from osfoundry_tools.core.tools import WRITE_SCOPE  # the scope an edit needs

EVERY = "*"  # a grant's resources of one type: every one
MIN_TOKEN_LENGTH = 16
MIN_DIFFERENT_CHARACTERS = 6  # fewer, and a token is weak whatever its length
MAX_TOKEN_LENGTH = 512  # characters: it travels in an HTTP header
MAX_CALLER_LENGTH = 128
MAX_ID_LENGTH = 128  # a resource's ID or a scope
OWN_KEYS = ("caller", "scopes", "approve_writes")  # what a grant holds besides the resources of each store served
CALLER_PATTERN = re.compile(r"[A-Za-z0-9_.@-]+")
VISIBLE_ASCII = re.compile(r"[\x21-\x7e]+")  # no space, no control character, nothing beyond ASCII
PRIVATE_BITS = 0o077  # group and other: any of them set and the file is refused
MAX_FILE_BYTES = 1 << 20  # 1 MiB: thousands of tokens with their grants; a larger file is refused unread


class Grant(NamedTuple):
    """What one token lets its agent do (hashable: a server keeps each store's view of a grant)."""

    caller: str  # whose idempotency keys these are; 1..128 characters
    resources: Tuple[Tuple[str, Optional[FrozenSet[str]]], ...]  # (resource_type, the IDs it may use, None for
    # every one), a pair per type the grant names, in the order of their types; a type it does not name: none
    scopes: FrozenSet[str]  # OAuth scopes, e.g. {"osfoundry:write"}; empty: read only
    approve_writes: bool = False  # a person approves each of its writes (approval.py), even without --approve-writes

    @classmethod
    def of(cls, caller: str, resources: Mapping[str, Optional[Iterable[str]]], scopes: Iterable[str] = (),
           approve_writes: bool = False) -> "Grant":
        """A grant of these resources, by resource_type (None: every one of that type)."""
        pairs = tuple(sorted((kind, None if ids is None else frozenset(ids)) for kind, ids in resources.items()))
        return cls(caller, pairs, frozenset(scopes), approve_writes)

    def granted(self, resource_type: str) -> Optional[FrozenSet[str]]:
        """The IDs of this resource type it may use: None for every one, none at all for a type it does not name."""
        for kind, ids in self.resources:
            if kind == resource_type:
                return ids
        return frozenset()


def grant_keys(stores: Iterable[Any]) -> Dict[str, str]:
    """What a token file's grants may list, for these stores (or store classes): each store's GRANT_KEY (the file's
    key, "knowledge_bases") -> its RESOURCE_TYPE ("knowledge_base"), in the order given."""
    return {store.GRANT_KEY: store.RESOURCE_TYPE for store in stores if store.GRANT_KEY and store.RESOURCE_TYPE}


class TokenFileError(ValueError):
    """The tokens file cannot be used: one line naming the file, what is wrong and what to do."""


class _Fault(ValueError):
    """What is wrong with one part of the file, before the file's name is put in front of it."""


class Tokens:
    """The tokens of one file, kept as digests, each with its grant."""

    def __init__(self, grants: Mapping[str, Grant]) -> None:
        """Tokens already checked (Tokens.load checks a file's) with their grants."""
        self._digests: List[Tuple[bytes, Grant]] = [(_digest(token), grant) for token, grant in grants.items()]

    @classmethod
    def load(cls, path: str, kinds: Mapping[str, str]) -> "Tokens":
        """The tokens of the file at `path`, whose grants list resources under the keys of `kinds` (grant_keys:
        file key -> resource_type); TokenFileError if it is open to other users or not well formed."""
        try:
            return cls(_grants(_parse(_read_private(path), kinds), kinds))
        except _Fault as fault:
            raise TokenFileError(_one_line(f"{path}: {fault}")) from None

    def grant_for(self, presented: str) -> Optional[Grant]:
        """The grant of the token presented, or None if it is none of them; the time taken does not depend on
        which token matched, if any."""
        if not _well_formed_token(presented):
            return None
        digest = _digest(presented)
        found = None
        for stored, grant in self._digests:  # no early exit: every digest is compared
            if hmac.compare_digest(stored, digest):
                found = grant
        return found

    def __len__(self) -> int:
        return len(self._digests)

    def __repr__(self) -> str:
        return f"Tokens({self.described()})"

    def described(self) -> str:
        """Whom the tokens serve, as a startup line says it: "2 callers: alice, reader" (the tokens never shown)."""
        callers = sorted({grant.caller for _, grant in self._digests})
        tokens = "" if len(callers) == len(self) else f"{len(self)} tokens, "
        return f"{tokens}{len(callers)} caller{'' if len(callers) == 1 else 's'}: {', '.join(callers)}"


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("ascii")).digest()


def _well_formed_token(token: Any) -> bool:
    return isinstance(token, str) and MIN_TOKEN_LENGTH <= len(token) <= MAX_TOKEN_LENGTH \
        and VISIBLE_ASCII.fullmatch(token) is not None


def _one_line(message: str) -> str:
    """The message with any line break in it (a path may hold one) written as an escape."""
    return message.replace("\r", "\\r").replace("\n", "\\n")


# The file: private, readable, JSON.

def _read_private(path: str) -> str:
    """The text of the file, refused before it is read if it is no regular file, is larger than MAX_FILE_BYTES
    or its mode lets other users read or write it."""
    try:
        data = cli.read_file(path, MAX_FILE_BYTES, lambda status: check_private(path, status))
        return data.decode("utf-8")
    except FileNotFoundError:
        raise _Fault("no such file; give --tokens the path of a JSON file of tokens") from None
    except UnicodeDecodeError:
        raise _Fault("not UTF-8 text; write the tokens file as UTF-8 JSON") from None
    except cli.FileTooLarge as refused:
        raise _Fault(f"{refused}; a tokens file holds a few tokens and their grants") from None
    except cli.FileRefused as refused:
        raise _Fault(f"{refused}; give --tokens the path of a JSON file of tokens") from None
    except OSError as error:
        raise _Fault(f"cannot be read ({error.strerror}); give --tokens a file this user can read") from None


def check_private(path: str, status: os.stat_result) -> None:
    """A ValueError saying what to do if a file of this status may be read or written by another user than the one
    this process runs as (POSIX): its mode lets group or others in, or it belongs to another user (root aside, who
    may read every file anyway)."""
    if os.name != "posix":
        return
    mode = stat.S_IMODE(status.st_mode)
    if mode & PRIVATE_BITS:
        raise _Fault(f"may be read by other users (mode {mode:04o}); chmod 600 {shlex.quote(path)}")
    user = os.geteuid()
    if status.st_uid not in (user, 0):
        raise _Fault(f"belongs to user {status.st_uid}, who may read and change it; chown {user} {shlex.quote(path)}")


def _parse(text: str, kinds: Mapping[str, str]) -> Dict[str, Any]:
    """The file's JSON object, strictly: no NaN or Infinity, and no key twice in one object."""
    try:
        value = json.loads(text, object_pairs_hook=_unique_keys, parse_constant=_not_json)
    except json.JSONDecodeError as error:
        raise _Fault(f"not valid JSON ({error.msg} at line {error.lineno}, column {error.colno}); "
                     "fix the file's syntax") from None
    except RecursionError:
        raise _Fault("not valid JSON for this server: arrays or objects nested too deeply to read; "
                     'write {"TOKEN": {"caller": "NAME", ...}, ...}') from None
    except _Fault:
        raise
    except ValueError as error:  # such as an integer of more digits than Python converts
        raise _Fault(f"not valid JSON for this server ({str(error).split(';')[0]}); fix the file") from None
    if not isinstance(value, dict):
        raise _Fault(f"holds a JSON {_kind(value)}, not an object; write "
                     '{"TOKEN": {"caller": "NAME", ...}, ...}')
    if not value:
        example = f', "{next(iter(kinds))}": [...]' if kinds else ""
        raise _Fault(f'holds no token; add one: {{"TOKEN": {{"caller": "NAME"{example}, ...}}}}')
    return value


def _unique_keys(pairs: Sequence[Tuple[str, Any]]) -> Dict[str, Any]:
    keys = [key for key, _ in pairs]
    if len(set(keys)) != len(keys):  # not named: the key may be a token
        raise _Fault("not valid JSON: a key appears twice in one object (a token listed twice?); keep one of them")
    return dict(pairs)


def _not_json(constant: str) -> None:
    raise _Fault(f"not valid JSON: {constant} is not a JSON value; write a string or a list")


def _kind(value: Any) -> str:
    kinds = {dict: "object", list: "array", str: "string", bool: "boolean", int: "number", float: "number"}
    return kinds.get(type(value), "null")


# The entries: a token and its grant each.

def _grants(entries: Dict[str, Any], kinds: Mapping[str, str]) -> Dict[str, Grant]:
    """Each token's grant, checked, in the file's order."""
    return {token: _entry(position, token, value, entries.keys(), kinds)
            for position, (token, value) in enumerate(entries.items(), 1)}


def _entry(position: int, token: str, value: Any, tokens: AbstractSet[str], kinds: Mapping[str, str]) -> Grant:
    where, keys = f"entry {position}", _grant_keys(kinds)
    if not isinstance(value, dict):
        raise _Fault(f"{where} maps its token to a JSON {_kind(value)}; map each token to an object "
                     f"with {_listing(keys)}")
    _check_keys(where, value, keys)
    caller = _caller(where, value.get("caller"), tokens)
    where = f"{where} (caller {caller})"
    if not _well_formed_token(token):
        raise _Fault(f"{where} has a token of {len(token)} characters that is not {MIN_TOKEN_LENGTH} to "
                     f"{MAX_TOKEN_LENGTH} visible ASCII characters (no space or control character); "
                     "make a new one, e.g. with: openssl rand -hex 32")
    weakness = _weakness(token)
    if weakness is not None:
        raise _Fault(f"{where} has a weak token ({weakness}), which anyone may guess; make a new one, e.g. with: "
                     "openssl rand -hex 32")
    return Grant.of(caller, {kind: _ids(where, key, value) for key, kind in kinds.items()},
                    _scopes(where, value.get("scopes", [])), _approve_writes(where, value.get("approve_writes", False)))


def _weakness(token: str) -> Optional[str]:
    """What makes a well-formed token guessable, in words that do not show it, or None: too few different
    characters, one short run repeated, or characters in order. A token drawn at random has none of these (one of
    16 random hex digits has fewer than 6 different ones about once in 30,000 draws; a longer one, practically
    never).

    >>> _weakness("passwordpassword"), _weakness("0123456789abcdef"), _weakness("token-of-alice-0123456789")
    ('one run of 8 characters repeated', 'its characters run in order, as abcd or 9876 do', None)
    """
    different = len(set(token))
    if different < MIN_DIFFERENT_CHARACTERS:
        return f"only {different} different character{'' if different == 1 else 's'}"
    for period in range(1, len(token) // 2 + 1):
        if token[period] == token[0] and token[period:] == token[:-period]:  # the first test spares most copies
            return f"one run of {period} characters repeated"
    if len({ord(after) - ord(before) for before, after in zip(token, token[1:])}) <= 2:  # 0123456789abcdef: 1, 40
        return "its characters run in order, as abcd or 9876 do"
    return None


def _grant_keys(kinds: Mapping[str, str]) -> Tuple[str, ...]:
    """Every key a grant may hold: its caller, the resources of each store served, its scopes, approve_writes."""
    return (OWN_KEYS[0], *kinds, *OWN_KEYS[1:])


def _check_keys(where: str, grant: Dict[str, Any], keys: Sequence[str]) -> None:
    unknown = [key for key in grant if key not in keys]
    if unknown:
        raise _Fault(f"{where} has the unknown key{'s' if len(unknown) > 1 else ''} {_listing(unknown)}; "
                     f"a grant may hold only {_listing(keys)}")
    if "caller" not in grant:
        raise _Fault(f'{where} has no caller; add "caller": "NAME" (whose idempotency keys these are)')


def _listing(keys: Sequence[str]) -> str:
    """Keys for a message; one as long as a token is not shown, since it may be one."""
    return ", ".join(repr(key) if len(key) < MIN_TOKEN_LENGTH else f"a key of {len(key)} characters (not shown)"
                     for key in keys)


def _caller(where: str, caller: Any, tokens: AbstractSet[str]) -> str:
    """The entry's caller, checked; never shown in a message unless well formed and none of the file's tokens
    (a token written as a caller would otherwise be logged as one whenever its agent calls)."""
    rule = f"1 to {MAX_CALLER_LENGTH} ASCII letters, digits and - _ . @"
    if not isinstance(caller, str):
        raise _Fault(f"{where} has a caller that is a JSON {_kind(caller)}; make it {rule}")
    if not 1 <= len(caller) <= MAX_CALLER_LENGTH:
        raise _Fault(f"{where} has a caller of {len(caller)} characters; make it {rule}")
    if not CALLER_PATTERN.fullmatch(caller):  # not shown: it may be a token written in the wrong place
        bad = next(character for character in caller if not CALLER_PATTERN.fullmatch(character))
        raise _Fault(f"{where} has a caller holding {bad!r}; make it {rule}")
    if caller in tokens:  # not shown, nor which token it is
        raise _Fault(f"{where} has a caller that is one of the file's tokens; make the caller a name, such as "
                     "the agent's (a caller is logged and stored with every edit; a token never may be)")
    return caller


def _ids(where: str, key: str, grant: Dict[str, Any]) -> Optional[FrozenSet[str]]:
    """The IDs a grant lists under `key`: None for "*", none at all if the key is left out."""
    value = grant.get(key, [])
    if value == EVERY:
        return None
    if isinstance(value, list) and EVERY in value:
        raise _Fault(f'{where} lists "*" as one of its {key}; write "{key}": "*" (no list) for every one')
    wanted = f'a list of IDs of 1 to {MAX_ID_LENGTH} characters, or "*" for every one'
    return frozenset(_strings(where, key, value, wanted, lambda item: 1 <= len(item) <= MAX_ID_LENGTH))


def _approve_writes(where: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise _Fault(f"{where} has approve_writes that is a JSON {_kind(value)}; make it true (a person approves "
                     "each of this token's writes) or false")
    return value


def _scopes(where: str, value: Any) -> FrozenSet[str]:
    wanted = f'a list of OAuth scopes of 1 to {MAX_ID_LENGTH} visible ASCII characters, e.g. ["{WRITE_SCOPE}"]'
    return frozenset(_strings(where, "scopes", value, wanted, _well_formed_scope))


def _well_formed_scope(scope: str) -> bool:
    return len(scope) <= MAX_ID_LENGTH and VISIBLE_ASCII.fullmatch(scope) is not None


def _strings(where: str, key: str, value: Any, wanted: str, fits: Callable[[str], bool]) -> List[str]:
    """The items of a list, each a string that `fits`."""
    if not isinstance(value, list):
        raise _Fault(f"{where} has {key} that is a JSON {_kind(value)}; make it {wanted}")
    for position, item in enumerate(value, 1):
        if not isinstance(item, str) or not fits(item):
            raise _Fault(f"{where} has a {key} item (number {position}) that does not fit; make {key} {wanted}")
    return value
