"""What a person approving a write is shown (shown_change.py): every character that changes, in context, however
long the line, title or field; whitespace, line ends and look-alike characters that change made visible; only
unchanged text left out, and counted; a change that cannot be shown whole within the bounds refused, nothing
written and the idempotency key left free.

The stores' own previews feed the question here (an article of the support store, an item of every field type),
so that what is tested is what a person would read.
"""

import random
import re
import threading
import unittest

from osfoundry_tools.server import approval, methods, routing, shown_change
from osfoundry_tools.server.shown_change import ChangeTooLarge, pieces
from tests.helpers import KB, snapshot, support_store
from tests.record_helpers import EVERY_TYPE, bug_store, read

SENTENCES = ["A reset link is sent to the address on file.", "It expires after 60 minutes.",
             "Ask an administrator if no link arrives.", "Passwords need twelve characters.",
             "Two-factor codes come by text message.", "Sessions end when the browser closes."]


def paragraph(characters, seed=1):
    """About `characters` of prose on one line, sentences drawn at random."""
    chooser, text = random.Random(seed), ""
    while len(text) < characters:
        text += chooser.choice(SENTENCES) + " "
    return text[:characters]


def question(before, after):
    return approval.request_message("bot", "Edit a knowledge article", before, after, {})


def article(content, title="Reset a password"):
    return {"kind": "article", "id": "art-1", "where": KB, "title": title, "content": content}


def changed_lines(message):
    """The "- " and "+ " lines of a question."""
    return [line for line in message.split("\n") if line.startswith(("- ", "+ "))]


class LongLinesTest(unittest.TestCase):
    """A change anywhere in a line of 10,000 characters is shown with the words around it, and the rest counted."""

    line = paragraph(10_000)

    def changed_at(self, where):
        at = self.line.index("60 minutes", where)
        new = self.line[:at] + "6 days" + self.line[at + len("60 minutes"):]
        return question(article("Intro.\n" + self.line + "\nEnd.\n"), article("Intro.\n" + new + "\nEnd.\n"))

    def test_a_change_at_the_start_the_middle_and_the_end_of_a_long_line_is_shown(self):
        for where in (0, 5_000, 9_700):
            with self.subTest(where=where):
                message = self.changed_at(where)
                old, new = changed_lines(message)
                self.assertIn("«60 minutes»", old)
                self.assertIn("«6 days»", new)
                self.assertNotEqual(old[2:], new[2:])
                self.assertRegex(message, r"\(\d[\d,]* unchanged characters\)")
                self.assertIn("(1 unchanged line)", message)
                self.assertLess(len(message), 1_000)
                context = re.search(r"(.{0,40})«60 minutes»(.{0,40})", old[2:])
                self.assertIsNotNone(context)
                self.assertIn(context.group(1)[-20:] + "«6 days»" + context.group(2)[:20], new)

    def test_changes_at_both_ends_of_a_long_line_are_both_shown(self):
        new = "Lead. " + self.line[:-1] + "!"
        old_line, new_line = changed_lines(question(article(self.line), article(new)))
        self.assertTrue(new_line.startswith("+ «Lead.␣»"), new_line)
        self.assertIn("unchanged characters", new_line)
        self.assertTrue(new_line.endswith("!»"), new_line)
        self.assertTrue(old_line.startswith("- «»"), old_line)

    def test_a_title_changed_near_its_end_is_shown(self):
        title = "How to " + "reset a password " * 11 + "after 60 minutes"
        message = question(article("Same.", title=title), article("Same.", title=title.replace("60 minutes",
                                                                                               "6 days")))
        self.assertIn("«60 minutes»", message)
        self.assertIn("«6 days»", message)
        self.assertIn("Content: unchanged", message)

    def test_a_line_rewritten_whole_that_fits_is_shown_whole(self):
        message = question(article("Short and old.\n"), article("Quite different now.\n"))
        self.assertIn("- «Short and old».", message)
        self.assertIn("+ «Quite different now».", message)


class InvisibleChangesTest(unittest.TestCase):
    """What a person could not see on a screen is marked: whitespace, line ends, look-alike letters, controls."""

    def lines(self, old, new):
        return changed_lines(question(article(old), article(new)))

    def test_whitespace_within_a_line_that_changes_is_marked(self):
        for old, new, shown_old, shown_new in (
                ("one  two", "one two", "«␣␣»", "«␣»"),
                ("one\ttwo", "one two", "«⇥»", "«␣»"),
                ("one two ", "one two", "«␣»", "«»"),
                ("one\u00a0two", "one two", "«⟨U+00A0⟩»", "«␣»")):
            with self.subTest(old=old):
                was, now = self.lines(old, new)
                self.assertIn(shown_old, was)
                self.assertIn(shown_new, now)

    def test_line_ends_alone_are_a_change_and_are_shown(self):
        for old, new, shown_old, shown_new in (("a\r\nb\r\n", "a\nb\n", "a«␍»↵", "a«»↵"),
                                               ("a\nb", "a\nb\n", "b«»", "b«↵»"),
                                               ("a\nb\n", "a\nb", "b«↵»", "b«»"),
                                               ("a\n\nb", "a\nb", "«↵»", None)):
            with self.subTest(old=old):
                message = question(article(old), article(new))
                self.assertNotIn("Content: unchanged", message)
                shown = changed_lines(message)
                self.assertIn(shown_old, shown[0])
                if shown_new is not None:
                    self.assertIn(shown_new, shown[1])

    def test_a_look_alike_letter_from_another_script_is_named(self):
        message = question(article("Enter your password here."), article("Enter your p\u0430ssword here."))
        self.assertIn("U+0430 CYRILLIC SMALL LETTER A", message)
        self.assertIn("mixes CYRILLIC and LATIN letters", message)

    def test_controls_format_characters_and_the_marks_themselves_are_shown_by_their_codes(self):
        was, now = self.lines("Pay to alice.", "Pay to \u202eecila\u202c. «6» \x1b[2J\u200b")
        for code in ("⟨U+202E⟩", "⟨U+202C⟩", "⟨U+00AB⟩", "⟨U+00BB⟩", "⟨U+001B⟩", "⟨U+200B⟩"):
            self.assertIn(code, now)
        self.assertNotIn("\x1b", now)
        self.assertNotIn("\u202e", now)

    def test_control_characters_in_a_title_never_reach_the_person_raw(self):
        before = article("a", title="Old\x1b[2J title")
        message = question(before, dict(before, content="b"))
        self.assertNotIn("\x1b", message)
        self.assertIn("⟨U+001B⟩", message)


class WhatIsLeftOutTest(unittest.TestCase):
    """Only unchanged text is ever left out: a diff of any two texts gives back both texts, and every span."""

    def test_the_pieces_of_any_pair_give_back_both_texts_and_unchanged_pieces_are_equal(self):
        chooser = random.Random(7)
        alphabet = ["a", "b", " ", "  ", "\t", "\n", "\r\n", "word", "é", "\u0430", ".", "«"]
        for _ in range(300):
            old = "".join(chooser.choice(alphabet) for _ in range(chooser.randint(0, 60)))
            new = list(old)
            for _ in range(chooser.randint(1, 4)):
                at = chooser.randint(0, len(new))
                new[at:at + chooser.randint(0, 3)] = chooser.choice(alphabet)
            new_text = "".join(new)
            runs = pieces(old, new_text)
            self.assertEqual("".join(run.old for run in runs), old)
            self.assertEqual("".join(run.new for run in runs), new_text)
            self.assertTrue(all(run.old == run.new for run in runs if not run.changed))
            self.assertTrue(all(run.old != run.new for run in runs if run.changed))

    def test_lines_between_changes_are_counted_and_every_changed_line_is_shown(self):
        old = [f"Line {n} says something." for n in range(200)]
        new = list(old)
        for n in (3, 90, 150):
            new[n] = new[n].replace("says", "said")
        message = question(article("\n".join(old)), article("\n".join(new)))
        self.assertEqual(message.count("«says»"), 3)
        self.assertEqual(message.count("«said»"), 3)
        for count in ("(3 unchanged lines)", "(86 unchanged lines)", "(59 unchanged lines)", "(49 unchanged lines)"):
            self.assertIn(count, message)

    def test_a_long_text_made_of_one_sentence_repeated_is_diffed_quickly_and_shown(self):
        old = "Sessions expire after 60 minutes of inactivity. " * 2000
        new = old[:50_000] + old[50_000:].replace("60", "6", 1)
        message = question(article(old), article(new))
        self.assertIn("«60»", message)
        self.assertIn("«6»", message)


class BoundsTest(unittest.TestCase):
    """What cannot be shown whole is refused: one place over SPAN_CHARACTERS, a question over QUESTION_CHARACTERS."""

    def test_one_place_changing_more_than_the_span_bound_is_refused(self):
        with self.assertRaises(ChangeTooLarge) as refused:
            question(article("Old."), article(paragraph(shown_change.SPAN_CHARACTERS + 10)))
        self.assertEqual(refused.exception.code, "change_too_large_to_approve")
        self.assertIn("Split it into smaller edits", refused.exception.message)

    def test_many_changes_that_together_exceed_the_question_bound_are_refused(self):
        old = [paragraph(300, seed=n) for n in range(60)]
        new = [line.replace(".", "!", 2) for line in old]
        with self.assertRaisesRegex(ChangeTooLarge, "a person is asked in 6,000 at most"):
            question(article("\n".join(old)), article("\n".join(new)))

    def test_a_change_just_within_the_bounds_is_asked(self):
        message = question(article("Old.\n"), article(paragraph(shown_change.SPAN_CHARACTERS - 10) + "\n"))
        self.assertLessEqual(len(message), shown_change.QUESTION_CHARACTERS)


class ThroughTheServerTest(unittest.TestCase):
    """The stores' previews, put to a person by the server: an article's and an item of every field type."""

    def setUp(self):
        self.kb, self.kb_clock, self.articles = support_store()
        self.records, _, self.items = bug_store()
        self.addCleanup(self.kb.close)
        self.addCleanup(self.records.close)
        tools = routing.Tools(routing.by_resource_type([self.kb, self.records]), threading.Lock())
        seal = approval.Seal(b"a sealing key of sixteen bytes or more")
        self.server = methods.Server(tools, approvals=approval.Approvals(seal, every_caller=True))

    def first_round(self, name, arguments):
        meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}
        message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                   "params": {"name": name, "arguments": arguments, "_meta": meta}}
        return self.server.handle(message)["result"]

    def message_of(self, result):
        self.assertEqual(result["resultType"], "input_required", result)
        return result["inputRequests"][approval.INPUT_KEY]["params"]["message"]

    def article_edit(self, content, key="shown-1"):
        current = self.kb.call_tool("read_knowledge_article", {"knowledge_base_id": KB, "article_id": self.articles[0]})
        return {"knowledge_base_id": KB, "article_id": self.articles[0], "content": content,
                "expected_version": current["updated_at"], "idempotency_key": key}

    def test_a_change_deep_in_a_long_paragraph_of_an_article_is_shown(self):
        long = paragraph(10_000)
        self.kb.save_article(KB, self.articles[0], content="Intro.\n" + long)
        at = long.index("60 minutes", 6_000)
        message = self.message_of(self.first_round("edit_knowledge_article", self.article_edit(
            "Intro.\n" + long[:at] + "6 days" + long[at + 10:])))
        self.assertIn("«60 minutes»", message)
        self.assertIn("«6 days»", message)

    def test_a_change_too_large_to_show_is_refused_writes_nothing_and_leaves_the_key_free(self):
        before = snapshot(self.kb)
        arguments = self.article_edit("\n".join(paragraph(900, seed=n) for n in range(12)), key="too-large")
        refused = self.first_round("edit_knowledge_article", arguments)
        self.assertEqual(refused["resultType"], "complete")
        self.assertTrue(refused["isError"])
        self.assertIn('"error": "change_too_large_to_approve"', refused["content"][0]["text"])
        self.assertEqual(snapshot(self.kb), before)
        self.assertEqual(self.server.approvals.tally.counts["too large to show"], 1)
        smaller = dict(arguments, content=self.kb.call_tool("read_knowledge_article", {
            "knowledge_base_id": KB, "article_id": self.articles[0]})["content"] + " One more sentence.")
        self.message_of(self.first_round("edit_knowledge_article", smaller))  # the same key, asked now

    def test_every_field_type_is_shown_where_it_changes(self):
        version = read(self.records, "every-1", EVERY_TYPE)["version"]
        values = {"name": "second", "count": 4, "due": "2026-03-01", "done": True, "contact": "a@example.org",
                  "phone": "+44 20 7946 0000", "site": "https://example.org/a/very/long/path?query=1",
                  "stage": "doing", "tags": ["ui", "db"], "price": 12.5, "share": 40, "stars": 2,
                  "bugs": [self.items[0]], "files": [{"name": "log.txt", "url": "https://example.org/log.txt"}],
                  "extra": {"k": [1, 2]}}
        message = self.message_of(self.first_round("edit_record_item", {
            "record_channel_id": EVERY_TYPE, "item_id": "every-1", "values": values, "expected_version": version,
            "idempotency_key": "every-type"}))
        self.assertIn("Name: «first» -> «second»", message)
        for label, shown in (("Count", "«4»"), ("Due", "«2026-03-01»"), ("Done", "«yes»"),
                             ("Contact", "«a@example.org»"), ("Phone", "«+44 20 7946 0000»"),
                             ("Site", "«https://example.org/a/very/long/path?query=1»"), ("Stage", "«Doing»"),
                             ("Tags", "«UI, Database»"), ("Price", "«12.5»"), ("Share", "«40»"), ("Stars", "«2»"),
                             ("Bugs", self.items[0]), ("Files", "log.txt"), ("Extra", "«{\"k\": [1, 2]}»")):
            with self.subTest(label=label):
                self.assertRegex(message, rf"\n{label}:(?: \(empty\) -> |\n- \(empty\)\n\+ ).*{re.escape(shown)}")
        self.assertNotIn("Age:", message)  # a formula changes with the clock, not with an edit

    def test_a_long_text_field_changed_deep_inside_is_shown(self):
        item = self.items[0]
        description = paragraph(7_000)
        current = read(self.records, item)
        self.records.call_tool("edit_record_item", {"record_channel_id": "bugs", "item_id": item, "values": {
            "description": description}, "expected_version": current["version"], "idempotency_key": "long"})
        at = description.index("60 minutes", 5_000)
        message = self.message_of(self.first_round("edit_record_item", {
            "record_channel_id": "bugs", "item_id": item, "expected_version": read(self.records, item)["version"],
            "values": {"description": description[:at] + "6 days" + description[at + 10:]},
            "idempotency_key": "deep"}))
        self.assertIn("Description:", message)
        self.assertIn("«60 minutes»", message)
        self.assertIn("«6 days»", message)

    def test_options_that_share_a_label_and_a_text_that_reads_empty_are_told_apart(self):
        self.records.create_channel("twins", "Twins", [
            {"key": "note", "label": "Note", "type": "text"},
            {"key": "size", "label": "Size", "type": "select", "options": [
                {"value": "s1", "label": "Small"}, {"value": "s2", "label": "Small"}]},
            {"key": "other", "label": "Note", "type": "text"}])
        self.records.create_item("twins", {"note": "(empty)", "size": "s1"}, item_id="twin-1")
        version = read(self.records, "twin-1", "twins")["version"]
        message = self.message_of(self.first_round("edit_record_item", {
            "record_channel_id": "twins", "item_id": "twin-1", "values": {"note": None, "size": "s2", "other": "x"},
            "expected_version": version, "idempotency_key": "twins"}))
        self.assertIn("Note (note): «(empty)» -> (empty)", message)
        self.assertIn("Size: Small («s1») -> Small («s2»)", message)
        self.assertIn("Note (other): (empty) -> «x»", message)

    def test_values_that_differ_but_would_read_alike_are_shown_as_a_change_each(self):
        self.records.create_channel("cfg", "Config", [
            {"key": "title", "label": "Title", "type": "text"},
            {"key": "settings", "label": "Settings", "type": "json"},
            {"key": "kind", "label": "Kind", "type": "select", "options": [
                {"value": "a", "label": "Bug"}, {"value": "b", "label": "Bug"}, {"value": "c", "label": "Bug (a)"}]}])
        self.records.create_item("cfg", {"title": "Flags", "settings": {"retries": 3}, "kind": "c"}, item_id="cfg-1")
        version = read(self.records, "cfg-1", "cfg")["version"]
        for values, shown in (({"settings": '{"retries": 3}'},  # the text in quotes, each difference marked
                               'Settings: «{»"retries«»": 3}«» -> «"{\\»"retries«\\»": 3}«"»'),
                              ({"settings": "1"}, 'Settings: «{"retries": 3}» -> «"1"»'),
                              ({"kind": "a"}, "Kind: Bug (a) («c») -> Bug (a) («a»)")):  # keys until unique
            with self.subTest(values=values):
                message = self.message_of(self.first_round("edit_record_item", {
                    "record_channel_id": "cfg", "item_id": "cfg-1", "values": values, "expected_version": version,
                    "idempotency_key": f"alike-{sorted(values)}"}))
                self.assertNotIn("No field's value changes", message)
                self.assertIn(shown, message)
        unchanged = self.message_of(self.first_round("edit_record_item", {
            "record_channel_id": "cfg", "item_id": "cfg-1", "values": {"settings": {"retries": 3}, "kind": "c"},
            "expected_version": version, "idempotency_key": "same"}))
        self.assertIn("No field's value changes", unchanged)


if __name__ == "__main__":
    unittest.main()
