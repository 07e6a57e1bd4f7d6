"""A person approves every agent write: what the server asks them, how their answer is read, and the sealed
requestState that carries a question across the stateless era's round trips.

Layer: server, beside its methods (methods.py), which call it for every tools/call of a tool whose annotations
do not say readOnlyHint (edit_knowledge_article and edit_record_item) when approval is on: for every caller
(--approve-writes) or for a token whose grant says "approve_writes": true. It knows the protocol's elicitation
and the stores' previews (agent_tools.AgentTools.preview), not the stores themselves.

Glossary:
  approval       a person's answer to one request: approve or decline (with an optional reason); there is no
                 "approve all" and nothing is remembered, so every write is asked again
  request        what the person reads: who asks, which article or item (by title, between quotes it cannot
                 close: a quote it holds is shown by its code; a character of these names that could pass for
                 another named on the line below), what would change, and that approving saves this one change
                 only. Every character that changes is shown, in context
                 (shown_change.py): each changed line, title or field as a "- " and a "+ " line with the
                 changed words between « and », whitespace and line ends that change marked, unchanged text
                 and lines counted where they are left out. A change that cannot be shown whole within
                 shown_change.QUESTION_CHARACTERS (SPAN_CHARACTERS in one place) is refused with
                 change_too_large_to_approve, nobody asked: the agent is told to split it into smaller edits
  preview        the call run in a transaction that is rolled back: the answer it would get now, and its
                 subject before and after. A call whose preview is a rejection (a version already stale, a bad
                 value) or a replay (it would write nothing) is answered at once, nobody asked
  commit         an approved call run as any call runs, its compare-and-swap checked then: a person's save that
                 came while the approval waited makes it a version_conflict saying so
  requestState   the stateless era's memory of a question, held by the client between the two rounds: sealed
                 with HMAC-SHA256 under the server's key, bound to the caller, the tool, the exact arguments, the
                 store's identity (its file's device and inode, not its path: a copy of the files refuses it) and
                 an expiry; servers given one key and serving the same store accept each other's. Whatever a
                 client sends in its place (not a string, over STATE_CHARACTERS, not ASCII, of another shape) is
                 refused with invalid_request_state, in words that name requestState. The same round sent again
                 once its change is saved (a retry after a lost answer) gets the call's stored result, replay:
                 true, whatever answer it carries, as the same call and key get anywhere: it writes nothing
  bound          how long a person may take: APPROVAL_SECONDS unless --approval-timeout says otherwise; past it,
                 the call is answered as unanswered (handshake era) or its requestState as expired

Every refusal here is a rejection that writes nothing and leaves the call's idempotency key unconsumed, so the
agent may send the same call, with the same key, again.
"""

import base64
import binascii
import collections
import hashlib
import hmac
import json
import logging
import re
import secrets
import threading
import time
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

from osfoundry_tools.core.idempotency import fingerprint
from osfoundry_tools.core.rejections import Rejection, quote
from osfoundry_tools.server.shown_change import (
    QUESTION_CHARACTERS, article_change, as_name, code_of, item_change, names_note, too_large, visible,
)

log = logging.getLogger("osfoundry.mcp")

APPROVAL_SECONDS = 600.0  # how long a person may take to answer before the request lapses (--approval-timeout)
LINE_CHARACTERS = 160  # of a subject's title where the question's opening sentence names it, and of a client's name
KEY_BYTES = 32  # a server's own sealing key, when no --approval-key-file gives one
STATE_PREFIX = "osf2"  # the first part of every requestState this server seals: its format's version (2: the store)
STATE_CHARACTERS = 4096  # a requestState longer than this is refused unread; one this server seals takes about 250
STATE_SHAPE = re.compile(STATE_PREFIX + r"\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}")  # prefix.claims.HMAC, base64url
INPUT_KEY = "approval"  # the key of the one input request in an InputRequiredResult
REASON_CHARACTERS = 500  # a reason given with a decline, at most
ELICIT = "elicitation/create"
MEANWHILE = ("version_conflict", "not_found")  # what a person's save or unpublish while an approval waited brings

DECISIONS = ("approve", "decline")
FORM: Dict[str, Any] = {  # what the person answers: the restricted schema both eras' elicitation takes
    "type": "object",
    "properties": {
        "decision": {"type": "string", "title": "Save this one change?", "enum": list(DECISIONS),
                     "description": "approve saves exactly the change above, once; decline saves nothing"},
        "reason": {"type": "string", "title": "Reason (optional)", "maxLength": REASON_CHARACTERS,
                   "description": "told to the agent with a decline"},
    },
    "required": ["decision"],
}


class Declined(Rejection):
    """The person declined, dismissed the request, or did not answer within the bound."""

    code = "declined"


class ApprovalUnavailable(Rejection):
    """Approval is on, and this client cannot put the question to its user."""

    code = "approval_unavailable"


class InvalidRequestState(Rejection):
    """A requestState this server did not seal for this very call, or one that expired."""

    code = "invalid_request_state"


# ---------------------------------------------------------------------------
# The request a person reads.


def request_message(caller: str, tool_title: str, before: Optional[Mapping[str, Any]],
                    after: Optional[Mapping[str, Any]], arguments: Mapping[str, Any]) -> str:
    """What the person is asked: who, what, the change, and that approving saves this one change only (for a
    store that shows no subject, the call's arguments). Every changed character is in it, with some context
    (shown_change.py says how it reads); ChangeTooLarge, nobody asked, for a change that cannot be shown whole
    within QUESTION_CHARACTERS."""
    agent = f"Agent {quoted(caller)} asks to save a change ({visible(tool_title)})"
    if before is None or after is None:
        shown = visible(json.dumps(arguments, ensure_ascii=False))
        lines = [f"{agent} with these arguments:", *notes_on([caller]), shown]
    else:
        where = f'{between(before["where"], "()/")}/{between(before["id"], "()/")}'
        lines = [f'{agent} to the {before["kind"]} {quoted(before["title"])} ({where}).',
                 *notes_on([caller, before["title"], before["where"], before["id"]]), ""]
        lines += article_change(before, after) if before["kind"] == "article" else item_change(before, after)
    lines += ["", CLOSING]
    message = "\n".join(lines)
    if len(message) > QUESTION_CHARACTERS:
        raise too_large(f"shown whole, with the context of each change, it takes {len(message):,} characters, and "
                        f"a person is asked in {QUESTION_CHARACTERS:,} at most")
    return message


CLOSING = "Approving saves this one change, once; the agent's next change is asked again."


def notes_on(names: Sequence[str]) -> List[str]:
    """The note under the opening sentence, as its one line, where a name it shows (as far as it shows it: quoted)
    could pass for another (shown_change.names_note); none otherwise."""
    note = names_note([name[:LINE_CHARACTERS] for name in names])
    return [f"  {note}"] if note else []


def between(text: str, delimiters: str) -> str:
    """Text people wrote, as the question puts it between `delimiters`: visible (as a name: shown_change.as_name),
    and each delimiter it holds shown by its code, so that it cannot close them and make what follows read as the
    question's own words.

    >>> between('a "b" (c/d)', '"'), between("kb/x)", "()/")
    ('a ⟨U+0022⟩b⟨U+0022⟩ (c/d)', 'kb⟨U+002F⟩x⟨U+0029⟩')
    """
    shown = as_name(text)
    for delimiter in delimiters:
        shown = shown.replace(delimiter, code_of(delimiter))
    return shown


def quoted(text: str) -> str:
    """Text people wrote (a title, the caller's name) between double quotes it cannot close, cut to
    LINE_CHARACTERS (the change itself is shown whole below it) with a "…" that no text can fake (visible shows
    the text's own by its code)."""
    if len(text) <= LINE_CHARACTERS:
        return f'"{between(text, chr(34))}"'
    return f'"{between(text[:LINE_CHARACTERS - 1], chr(34))}…"'


def cut(text: str, limit: int = LINE_CHARACTERS) -> str:
    """One line of at most `limit` characters: line breaks shown as spaces, other control characters (a terminal's
    escapes) as spaces too.

    >>> cut("two\\nlines \\x1b[31mred")
    'two lines [31mred'
    """
    flat = " ".join("".join(c if c.isprintable() else " " for c in str(text)).split())
    return flat if len(flat) <= limit else flat[:limit - 1] + "…"


def elicitation(message: str) -> Dict[str, Any]:
    """The params of an elicitation/create request in form mode."""
    return {"mode": "form", "message": message, "requestedSchema": FORM}


# ---------------------------------------------------------------------------
# The person's answer.


class Answer:
    """What came back: approved, or not and why (declined, cancelled, no answer) with a reason if one was given."""

    def __init__(self, outcome: str, reason: Optional[str] = None) -> None:
        self.outcome = outcome  # "approved", "declined", "cancelled", "unanswered" or "stopped" (the server's)
        self.reason = reason

    @property
    def approved(self) -> bool:
        return self.outcome == "approved"

    @classmethod
    def of(cls, result: Any) -> "Answer":
        """The answer an ElicitResult ({action, content}) carries; anything else counts as no answer."""
        if not isinstance(result, dict) or result.get("action") not in ("accept", "decline", "cancel"):
            return cls("unanswered")
        given = result.get("content")
        content: Dict[str, Any] = given if isinstance(given, dict) else {}
        reason = content.get("reason")
        reason = cut(reason, REASON_CHARACTERS) if isinstance(reason, str) and reason.strip() else None
        if result["action"] == "cancel":
            return cls("cancelled", reason)
        if result["action"] == "accept" and content.get("decision") == "approve":
            return cls("approved")
        return cls("declined", reason)


def declined(answer: Answer, who: str, bound: float) -> Declined:
    """The rejection for an answer that is not an approval, saying who, why, and what the agent may do."""
    said = f' Their reason: "{answer.reason}".' if answer.reason else ""
    if answer.outcome == "declined":
        text = (f"{who} declined this change; nothing was saved.{said} Do not send it again unless they ask: tell "
                "them what you wanted to change and why, and ask what they would like instead.")
    elif answer.outcome == "cancelled":
        text = (f"{who} dismissed the approval request without deciding; nothing was saved.{said} Tell them what "
                "you want to change; send the same call (the same idempotency_key is fine) when they are ready.")
    elif answer.outcome == "stopped":
        text = (f"the server is stopping, so the question to {who} was given up before they answered; nothing was "
                "saved. Send the same call again (the same idempotency_key is fine) once the server is back.")
    else:
        text = (f"no answer came from {who} within {bound:g} seconds; nothing was saved. Send the same call again "
                "(the same idempotency_key is fine) when the person is there to approve it.")
    return Declined(text, answer=answer.outcome, declined_by=who,
                    **({"reason": answer.reason} if answer.reason else {}))


def unavailable(why: str) -> ApprovalUnavailable:
    """The rejection for a client that cannot ask its user."""
    return ApprovalUnavailable(
        f"this server puts every write to a person for approval before saving it, through MCP elicitation, and "
        f"{why}; nothing was saved. Tell the person what you wanted to change, or ask them to connect a client "
        "that can show approval requests (one that declares the elicitation capability).",
        requires="elicitation")


# ---------------------------------------------------------------------------
# The sealed requestState.


def _encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def _decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Seal:
    """Seals and opens requestState: HMAC-SHA256 under `key` of the caller, the tool, the arguments' fingerprint,
    the store's identity (engines' Database.identity), an expiry and a nonce. The state is signed, not encrypted:
    it holds nothing the client does not know."""

    def __init__(self, key: bytes, clock: Callable[[], float] = time.time,
                 nonce: Callable[[], str] = lambda: secrets.token_hex(8)) -> None:
        if len(key) < 16:
            raise ValueError("a sealing key needs at least 16 bytes")
        self.key = key
        self.clock = clock
        self.nonce = nonce

    def issue(self, caller: str, tool: str, arguments: Mapping[str, Any], seconds: float, store: str = "") -> str:
        """A requestState for this call on this `store` (its identity), good for `seconds`."""
        claims = {"c": caller, "t": tool, "a": fingerprint(arguments), "s": store,
                  "x": round(self.clock() + seconds, 3), "n": self.nonce()}
        body = _encode(json.dumps(claims, sort_keys=True, separators=(",", ":")).encode("utf-8"))
        return f"{STATE_PREFIX}.{body}.{self._mac(body)}"

    def refusal(self, state: Any, caller: str, tool: str, arguments: Mapping[str, Any],
                store: str = "") -> Optional[str]:
        """None if `state` is one this key sealed for this very call on this very store and it has not expired;
        else why not, in words for the agent. Whatever `state` is (any JSON value, of any length, in any
        characters), the answer is one of these, never an exception."""
        if not isinstance(state, str):
            return f"it is a JSON {type(state).__name__ if state is not None else 'null'}, and a requestState is the " \
                   "string this server sent, unchanged"
        if len(state) > STATE_CHARACTERS:
            return (f"it holds {len(state):,} characters, more than any requestState this server issues "
                    f"({STATE_CHARACTERS:,})")
        if not state.isascii() or not STATE_SHAPE.fullmatch(state):
            return "it is not a requestState this server issued"
        _, body, mac = state.split(".")
        if not hmac.compare_digest(self._mac(body), mac):
            return "its signature does not match: it was altered, or sealed under another key"
        try:
            claims = json.loads(_decode(body))
        except (ValueError, binascii.Error):  # UnicodeDecodeError and JSONDecodeError are ValueErrors
            claims = None
        if not isinstance(claims, dict):
            return "it is not a requestState this server issued"
        if claims.get("c") != caller or claims.get("t") != tool or claims.get("a") != fingerprint(arguments):
            return "it was issued for another call (another caller, tool or arguments)"
        if claims.get("s") != store:
            return ("it was issued on another store: a copy of this one's data, or another database; a state means "
                    "one call on one store")
        expiry = claims.get("x")
        if isinstance(expiry, bool) or not isinstance(expiry, (int, float)) or self.clock() > expiry:
            return "it has expired: the person's answer came after the bound"
        return None

    def _mac(self, body: str) -> str:
        return _encode(hmac.new(self.key, f"{STATE_PREFIX}.{body}".encode("ascii"), hashlib.sha256).digest())


def load_key(path: str, read: Callable[[str], bytes]) -> bytes:
    """A shared sealing key from a file (its bytes, surrounding whitespace dropped); ValueError if too short."""
    key = read(path).strip()
    if len(key) < 16:
        raise ValueError(f"{path}: a sealing key needs at least 16 bytes, e.g. from: "
                         f"(umask 077; openssl rand -hex 32 > {path})")
    return key


# ---------------------------------------------------------------------------
# The policy: who is held, and the two ways of asking.


class Tally:
    """How approvals went since the server started, counted as they happen (thread-safe)."""

    KINDS = ("asked", "approved and saved", "approved, then changed meanwhile", "approved, then failed", "declined",
             "cancelled", "unanswered", "stopped", "version_conflict before asking", "too large to show")

    def __init__(self) -> None:
        self.counts: Dict[str, int] = collections.Counter()
        self._lock = threading.Lock()

    def add(self, kind: str) -> None:
        with self._lock:
            self.counts[kind] += 1

    def summary(self) -> str:
        return "; ".join(f"{kind}: {self.counts[kind]}" for kind in self.KINDS)


class Approvals:
    """Whether a call is held for a person, and what it is answered in each era.

    `every_caller`: --approve-writes (every caller held); otherwise only a grant saying approve_writes is.
    `bound`: seconds a person may take. The seal's key makes states valid across processes that share it."""

    def __init__(self, seal: Seal, every_caller: bool = False, bound: float = APPROVAL_SECONDS) -> None:
        self.seal = seal
        self.every_caller = every_caller
        self.bound = bound
        self.tally = Tally()

    def holds(self, writes: bool, grant: Any) -> bool:
        """Whether a call must wait for a person: a write, by a caller held."""
        return writes and (self.every_caller or bool(getattr(grant, "approve_writes", False)))

    def screen(self, preview_answer: Dict[str, Any]) -> Optional[Dict[str, Any]]:
        """The answer to give at once, nobody asked, or None to ask: a rejection (counted when it is a stale
        version) or a replay, which writes nothing."""
        if "error" in preview_answer:
            if preview_answer["error"] == "version_conflict":
                self.tally.add("version_conflict before asking")
            return preview_answer
        if preview_answer.get("replay") is not False:
            return preview_answer
        return None

    def committed(self, answer: Dict[str, Any]) -> Dict[str, Any]:
        """An approved call's answer, a rejection at commit saying that the approval came but the save did not."""
        if "error" not in answer:
            self.tally.add("approved and saved")
            return answer
        if answer["error"] not in MEANWHILE:
            self.tally.add("approved, then failed")
            return dict(answer, approved=True, message=f"A person approved this change, but it could not be saved: "
                        f"{answer['message']}")
        self.tally.add("approved, then changed meanwhile")
        return dict(answer, approved=True, message=f"A person approved this change, but {subject_name(answer)} "
                    f"changed meanwhile, so it was not saved: {answer['message']}")

    def refused(self, answer: Answer, who: str) -> Dict[str, Any]:
        """A decline, a dismissal or no answer, counted, as the rejection the agent gets."""
        self.tally.add(answer.outcome)
        return declined(answer, who, self.bound).as_result()


def who_answers(client: Any) -> str:
    """How a rejection names the person: by the client they use, when it said its name."""
    name = client.get("name") if isinstance(client, dict) else None
    return f"the person using {cut(name, 80)}" if isinstance(name, str) and name.strip() else "the person"


def subject_name(answer: Mapping[str, Any]) -> str:
    """How a rejection at commit names what changed: the article or item its details name."""
    for key, kind in (("article_id", "article"), ("item_id", "item")):
        if isinstance(answer.get(key), str):
            return f"the {kind} {quote(answer[key])}"
    return "what it edits"


def state_refused(reason: str) -> Dict[str, Any]:
    """The rejection for a requestState that cannot be used: this call wrote nothing, and what to send instead."""
    return InvalidRequestState(
        f"the requestState sent with this call cannot be used: {reason}; this call saved nothing. Send the call "
        "again without requestState and inputResponses: if its idempotency_key saved this very call already, "
        "you get that result back (replay: true); otherwise the person is asked afresh.", reason=reason).as_result()


def answers_of(responses: Any) -> Optional[Any]:
    """The person's ElicitResult among a retry's inputResponses, or None if it is missing."""
    return responses.get(INPUT_KEY) if isinstance(responses, dict) else None


def can_elicit(capabilities: Any) -> bool:
    """Whether declared capabilities let the server ask in form mode: elicitation present, and either empty (form,
    by the specification's default) or naming form."""
    elicit = capabilities.get("elicitation") if isinstance(capabilities, dict) else None
    if not isinstance(elicit, dict):
        return False
    return not elicit or "form" in elicit

