"""The scripted agent of the record-channel experiments (docs/source-figures.md), through call_tool only.

Layer: below runs.py; it talks to a record store exactly as an MCP client
would (tool name and JSON arguments in, a JSON result out) and never looks at the
store's tables.

What it does with a person's triage words ("In progress", "Aiko", "major", 20,
"Friday", "API"), following the article:
  - with the schema from the listing, it maps each word to an option value first
    (by value, by label, or by a word of a label), and a weekday to a date;
  - without it, it sends the words as they are;
  - on a rejection it fixes what the rejection lets it fix: an option value from
    the allowed values (or their labels), a date when the message gives the format;
  - it never clamps a number and never guesses: what it cannot fix is dropped from
    the edit and flagged to a person;
  - a terse rejection says nothing, so it splits the edit into single-field edits
    (with the schema or without it);
  - it never sends an empty edit: when every field was refused, it stops.

Glossary:
  words     what the person wrote for one item: field key -> word or number
  flagged   (item ID, field key) the agent left to a person
"""

import datetime
import itertools
import re
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
DATE_FORMAT_HINT = "YYYY-MM-DD"  # what a date rejection's message names when it gives the format
MAX_EDITS_PER_ITEM = 8  # a bound, never reached by the scripted behaviour: 1 + one edit per field


def normalised(text: str) -> str:
    """How the agent compares words: lower case, runs of spaces and hyphens as one underscore."""
    return re.sub(r"[\s\-]+", "_", text.strip().lower())


def match_option(word: Any, options: Sequence[Tuple[str, Optional[str]]]) -> Optional[str]:
    """The option value a person's word names, or None; options are (value, label or None).

    By value ("in progress" -> in_progress), by a value that opens the word ("S2 Major" -> s2),
    by label ("Won't fix" -> wont_fix), or by one word of a label ("major" -> s2, if only one
    label has it). From values alone, "Won't fix" and "major" name nothing: that is the point.
    """
    if not isinstance(word, str) or not word.strip():
        return None
    wanted = normalised(word)
    values = {normalised(value): value for value, _ in options}
    if wanted in values:
        return values[wanted]
    first = wanted.split("_")[0]
    if first in values:
        return values[first]
    labels = [(value, normalised(label)) for value, label in options if label]
    by_label = [value for value, label in labels if label == wanted]
    if by_label:
        return by_label[0]
    by_word = [value for value, label in labels if wanted in label.split("_")]
    return by_word[0] if len(by_word) == 1 else None


def resolve_date(word: Any, today: datetime.date) -> Optional[str]:
    """An ISO date for a person's due: an ISO date stays, a weekday is the next one after today."""
    if not isinstance(word, str):
        return None
    try:
        return datetime.date.fromisoformat(word.strip()).isoformat()
    except ValueError:
        pass
    if word.strip().lower() in WEEKDAYS:
        ahead = (WEEKDAYS.index(word.strip().lower()) - today.weekday() - 1) % 7 + 1
        return (today + datetime.timedelta(days=ahead)).isoformat()
    return None


class TriageAgent:
    """Triage one record channel through the agent tools, keeping count of what it calls and flags."""

    def __init__(self, store: Any, channel_id: str, *, reads_schema: bool, today: datetime.date) -> None:
        self.store = store
        self.channel_id = channel_id
        self.reads_schema = reads_schema
        self.today = today
        self.calls: Dict[str, int] = {}
        self.flagged: List[Tuple[str, str]] = []
        self.first_failed = 0  # items whose first edit was refused
        self.nothing_left = 0  # items where every field was refused, so no second edit was sent
        self._keys = (f"triage-{n}" for n in itertools.count(1))

    def call(self, name: str, arguments: Dict[str, Any]) -> Dict[str, Any]:
        """One tool call, counted."""
        self.calls[name] = self.calls.get(name, 0) + 1
        return self.store.call_tool(name, arguments)

    def listing(self, limit: int) -> Tuple[Dict[str, Any], List[Dict[str, Any]]]:
        """Every page, newest first, by before_id: the schema of the last page and every preview."""
        previews: List[Dict[str, Any]] = []
        arguments: Dict[str, Any] = {"record_channel_id": self.channel_id, "limit": limit}
        while True:
            page = self.call("list_record_items", arguments)
            if "error" in page:
                raise RuntimeError(f"the listing failed: {page}")
            previews.extend(page["items"])
            if page["next_before_id"] is None:
                return page["schema"], previews
            arguments = dict(arguments, before_id=page["next_before_id"])

    def triage(self, item_id: str, version: int, words: Mapping[str, Any],
               schema: Mapping[str, Any]) -> None:
        """Apply one person's words to one item, as far as the tools allow."""
        values = self.first_values(item_id, words, schema) if self.reads_schema else dict(words)
        if not values:
            return
        result = self.edit(item_id, version, values)
        if result.get("error") == "validation_failed":
            self.first_failed += 1
            self.recover(item_id, version, values, result)
        elif "error" in result:
            raise RuntimeError(f"unexpected rejection of {item_id}: {result}")

    def first_values(self, item_id: str, words: Mapping[str, Any], schema: Mapping[str, Any]) -> Dict[str, Any]:
        """The words mapped through the schema: option values for labels, dates for weekdays, numbers as said."""
        fields = {field["key"]: field for field in schema["fields"]}
        values = {}
        for key, word in words.items():
            field = fields.get(key)
            value: Any = word
            if field is not None and field["type"] in ("select", "multi_select"):
                value = match_option(word, [(o["value"], o["label"]) for o in field["options"]])
            elif field is not None and field["type"] == "date":
                value = resolve_date(word, self.today)
            if value is None:
                self.flagged.append((item_id, key))
            else:
                values[key] = value
        return values

    def recover(self, item_id: str, version: int, values: Dict[str, Any], rejection: Dict[str, Any]) -> None:
        """After a refused edit: split it (terse), or fix and drop per failed field and send the rest once more."""
        for _ in range(MAX_EDITS_PER_ITEM):
            if "fields" not in rejection:
                self.one_field_at_a_time(item_id, version, values)
                return
            values = self.fixed(item_id, values, rejection["fields"])
            if not values:
                self.nothing_left += 1
                return
            result = self.edit(item_id, version, values)
            if "error" not in result:
                return
            if result["error"] != "validation_failed":
                raise RuntimeError(f"unexpected rejection of {item_id}: {result}")
            rejection = result
        raise RuntimeError(f"{item_id}: still refused after {MAX_EDITS_PER_ITEM} edits")

    def one_field_at_a_time(self, item_id: str, version: int, values: Mapping[str, Any]) -> None:
        """A terse rejection names nothing: send each field alone and flag those refused."""
        for key, value in values.items():
            result = self.edit(item_id, version, {key: value})
            if "error" in result:
                self.flagged.append((item_id, key))
            else:
                version = result["version"]

    def fixed(self, item_id: str, values: Mapping[str, Any], failures: Sequence[Mapping[str, Any]]) -> Dict[str, Any]:
        """values with each failed field fixed from what its failure says, or dropped and flagged."""
        kept = dict(values)
        for failure in failures:
            key = failure["key"]
            repaired = self.repair(kept.pop(key, None), failure)
            if repaired is None:
                self.flagged.append((item_id, key))
            else:
                kept[key] = repaired
        return kept

    def repair(self, sent: Any, failure: Mapping[str, Any]) -> Any:
        """The value a failure lets the agent send instead, or None: never a clamped number, never a guess."""
        if "allowed" in failure:
            labels = failure.get("labels", {})
            return match_option(sent, [(value, labels.get(value)) for value in failure["allowed"]])
        if DATE_FORMAT_HINT in failure.get("message", ""):
            return resolve_date(sent, self.today)
        return None

    def edit(self, item_id: str, version: int, values: Mapping[str, Any]) -> Dict[str, Any]:
        """One edit_record_item call with a fresh idempotency key."""
        return self.call("edit_record_item", {"record_channel_id": self.channel_id, "item_id": item_id,
                                              "values": dict(values), "expected_version": version,
                                              "idempotency_key": next(self._keys)})
