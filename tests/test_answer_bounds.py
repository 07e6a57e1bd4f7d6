"""Every answer is bounded: rejections list at most 20 failures, searches cost what they return, and each tool's
largest answer, built on purpose, stays under the bound the README states."""

import json
import unittest

from osfoundry_tools.content import workload
from osfoundry_tools.core import checks
from osfoundry_tools.stores import kb_search, kb_snippets, kb_store, record_fields, record_store
from tests import helpers
from tests.helpers import KB, ManualClock, support_store
from tests.record_helpers import BUGS, bug_store

KIB = 1024
# The README's bounds ("What the stores promise"), in UTF-8 bytes of the JSON an MCP client receives.
BOUNDS = {
    "search_knowledge_base": 128 * KIB, "read_knowledge_article": 640 * KIB,
    "poll_resource_events": 128 * KIB, "read_record_item": 1024 * KIB,
    "list_record_items (the bug tracker)": 256 * KIB, "validation_failed (the bug tracker)": 64 * KIB,
}
WORST = "\x01"  # a character JSON spends 6 bytes on (\u0001)
ID_TAIL = WORST * (checks.ID_CHARACTERS - 3)  # what follows a three-digit number in an ID at its longest


def size(result):
    return len(json.dumps(result, ensure_ascii=False).encode("utf-8"))


class RejectionBoundTest(unittest.TestCase):
    def test_two_hundred_thousand_unknown_keys_get_twenty_listed_the_allowed_keys_once_and_nothing_saved(self):
        store, _, ids = bug_store()
        before = helpers.snapshot(store)
        values = {f"nonexistent_field_{n:06d}": n for n in range(200_000)}
        result = store.call_tool("edit_record_item", {"record_channel_id": BUGS, "item_id": ids[0], "values": values,
                                                      "expected_version": 1, "idempotency_key": "k"})
        self.assertEqual(len(result["fields"]), record_fields.LISTED_FAILURES)
        self.assertEqual(result["more_fields"], 200_000 - record_fields.LISTED_FAILURES)
        self.assertEqual(sum("allowed" in f for f in result["fields"]), 1)
        self.assertLess(size(result), 8 * KIB)
        self.assertEqual(helpers.snapshot(store), before)

    def test_long_keys_and_values_are_quoted_cut(self):
        store, _, ids = bug_store()
        result = store.call_tool("edit_record_item", {
            "record_channel_id": BUGS, "item_id": ids[0], "expected_version": 1, "idempotency_key": "k",
            "values": {"k" * 50_000: 1, "status": WORST * 50_000, "due": "9" * 50_000}})
        self.assertLess(size(result), 4 * KIB)
        self.assertEqual([f["key"] for f in result["fields"]][:2], ["status", "due"])

    def test_an_item_that_would_outgrow_its_bound_is_refused_whole(self):
        store = record_store.connect(clock=ManualClock())
        fields = [{"key": key, "label": key, "type": "text"} for key in ("a", "b", "c")]
        store.create_channel("notes", "Notes", fields)
        item = store.create_item("notes", {"a": "x"})["item_id"]
        before = helpers.snapshot(store)
        result = store.call_tool("edit_record_item", {
            "record_channel_id": "notes", "item_id": item, "expected_version": 1, "idempotency_key": "k",
            "values": {key: "y" * 90_000 for key in ("a", "b", "c")}})
        self.assertEqual((result["error"], result["argument"], result["rule"]),
                         ("invalid_arguments", "values", "maxLength"))
        self.assertEqual(helpers.snapshot(store), before)
        with self.assertRaisesRegex(record_store.InvalidValues, "more than 200,000"):
            store.create_item("notes", {key: "y" * 90_000 for key in ("a", "b", "c")})
        self.assertEqual(helpers.snapshot(store), before)


class SearchCostTest(unittest.TestCase):
    def test_a_repeated_word_is_searched_once(self):
        self.assertEqual(kb_search.match_expression("aa " * 66), '"aa"')
        store, _, _ = support_store()
        once = store.call_tool("search_knowledge_base", {"knowledge_base_id": KB, "query": "reset password"})
        many = store.call_tool("search_knowledge_base", {"knowledge_base_id": KB,
                                                         "query": "reset password " * 13})
        self.assertEqual(many, once)

    def test_a_planted_article_gives_a_bounded_snippet_whatever_its_content(self):
        for content in ("a" * 99_999, "ba" * 49_999, "a " * 49_999, WORST * 99_999, "x" * 5_000 + " aa here"):
            with self.subTest(content=content[:6]):
                quoted = kb_snippets.snippet(content, "aa " * 66)
                self.assertLessEqual(len(quoted), kb_snippets.SNIPPET_CHARACTERS)
        self.assertEqual(kb_snippets.snippet("baa " * 10 + "one two three four aardvark", "aa"),
                         "…two three four aardvark")
        self.assertEqual(kb_snippets.snippet("x" * 5_000 + " aa here", "aa")[:3], "xxx")  # past the scan: the start

    def test_a_word_found_only_inside_other_words_leaves_the_snippet_at_the_start(self):
        self.assertEqual(kb_snippets.snippet("banana bandana", "ana"), "banana bandana")


class LargestAnswersTest(unittest.TestCase):
    """Each tool's largest answer, built on purpose at every limit, against its stated bound."""

    def test_the_largest_search_read_and_poll_stay_under_their_bounds(self):
        clock = ManualClock()
        store = kb_store.connect(clock=clock)
        kb = WORST * checks.ID_CHARACTERS
        store.create_knowledge_base(kb)
        for n in range(kb_store.SEARCH_KNOWLEDGE_BASE.input_schema["properties"]["limit"]["maximum"] + 5):
            article = f"{n:03d}" + ID_TAIL
            store.create_article(kb, f"zz{n} " + WORST * 190, (WORST + " zz ") * 19_999, article_id=article)
        for n in range(120):
            store.save_article(kb, f"{n % 20:03d}" + ID_TAIL, title=f"zz{n} renamed " + WORST * 180)
        answers = {
            "search_knowledge_base": store.call_tool("search_knowledge_base", {
                "knowledge_base_id": kb, "query": "zz " * 60, "limit": 20}),
            "read_knowledge_article": store.call_tool("read_knowledge_article", {
                "knowledge_base_id": kb, "article_id": "000" + ID_TAIL}),
            "poll_resource_events": store.call_tool("poll_resource_events", {
                "resource_type": "knowledge_base", "resource_id": kb, "limit": 100}),
        }
        self.assertEqual(len(answers["search_knowledge_base"]["results"]), 20)
        self.assertEqual(len(answers["poll_resource_events"]["events"]), 100)
        for tool, answer in answers.items():
            with self.subTest(tool=tool):
                self.assertNotIn("error", answer)
                self.assertLessEqual(size(answer), BOUNDS[tool])

    def test_the_largest_item_page_and_rejection_stay_under_their_bounds(self):
        store, _, _ = bug_store(items=0)
        longest = {f["key"]: f.get("max_length") for f in workload.BUG_TRACKER_FIELDS if f["type"] == "text"}
        for n in range(55):
            values = {key: f"{n}" + WORST * (limit - len(str(n))) for key, limit in longest.items()}
            store.create_item(BUGS, dict(values, status="new", reporter="r" * 60 + "@example.com"),
                              item_id=f"{n:03d}" + ID_TAIL)
        page = store.call_tool("list_record_items", {"record_channel_id": BUGS, "limit": 50})
        read = store.call_tool("read_record_item", {"record_channel_id": BUGS, "item_id": "000" + ID_TAIL})
        failing = {key: WORST * 10_000 for key in ("title", "status", "owner", "severity", "area", "due",
                                                   "reporter", "points", "age_days")}
        failing.update({f"unknown_{n}": 1 for n in range(100)})
        rejection = store.call_tool("edit_record_item", {"record_channel_id": BUGS, "item_id": "000" + ID_TAIL,
                                                         "values": failing, "expected_version": 1,
                                                         "idempotency_key": "k"})
        self.assertEqual((len(page["items"]), rejection["error"]), (50, "validation_failed"))
        for tool, answer in (("list_record_items (the bug tracker)", page), ("read_record_item", read),
                             ("validation_failed (the bug tracker)", rejection)):
            with self.subTest(tool=tool):
                self.assertLessEqual(size(answer), BOUNDS[tool])

    def test_an_item_read_is_bounded_by_the_item_bound_whatever_the_channel(self):
        store = record_store.connect(clock=ManualClock())
        store.create_channel("wide", "Wide", [{"key": f"f{n}", "label": "F", "type": "text"} for n in range(40)])
        values = {}
        for n in range(40):
            values[f"f{n}"] = WORST * 6_000
            try:
                item = store.create_item("wide", values)["item_id"]
            except record_store.InvalidValues:
                values.pop(f"f{n}")
        read = store.call_tool("read_record_item", {"record_channel_id": "wide", "item_id": item})
        self.assertLessEqual(size(read), BOUNDS["read_record_item"])


if __name__ == "__main__":
    unittest.main()
