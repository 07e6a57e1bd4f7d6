"""What the approval question may never do: hide a character that changes, show a stored change as none, give
two fields one name, let a title close its quotes. Each test is a change a person could otherwise approve without
seeing it (shown_change.py, approval.request_message, the record store's preview).
"""

import unicodedata
import unittest

from osfoundry_tools.server import approval, shown_change
from osfoundry_tools.server.shown_change import named_characters, visible
from tests.helpers import KB
from tests.record_helpers import EVERY_TYPE, read
from tests.test_approval import Workspace, answered, approve

CYRILLIC_APPLE = "\u0430\u0440\u0440\u04cf\u0435"  # аррӏе: a, er, er, palochka, ie, all Cyrillic
OTHERS = "accented letters, letters of other scripts, dashes and the like"  # how a note counts the rest
BLANKS = ("\u2800", "\u3164", "\u115f", "\u1160", "\uffa0", "\u034f", "\ufe00", "\ufe0f", "\U000e0100",
          "\U000e01ef", "\u17b4", "\u180b", "\U000e0041")  # each prints nothing, or a blank


def article(content, title="Reset a password", id_="art-1", where=KB):
    return {"kind": "article", "id": id_, "where": where, "title": title, "content": content}


def question(before, after, caller="bot"):
    return approval.request_message(caller, "Edit a knowledge article", before, after, {})


class LookalikesTest(unittest.TestCase):
    """Every non-ASCII character that changes is seen: one that could pass for another is always named."""

    def test_a_lookalike_word_is_named_however_many_accented_letters_change_before_it(self):
        old = "Contact: Jose Pena Muller, Oresund. Pay at https://apple.com/pay."
        new = f"Contact: José Peña Müller, Øresund. Pay at https://{CYRILLIC_APPLE}.com/pay."
        message = question(article(old), article(new))
        for character in sorted(set(CYRILLIC_APPLE)):
            self.assertIn(f"U+{ord(character):04X} {unicodedata.name(character)}", message)
        note = message.split("\n")[-3]  # under the "+ " line: Ø (like O) named too; é, ñ, ü counted
        self.assertIn(f"and 3 more: {OTHERS}", note)

    def test_a_word_wholly_in_another_script_is_named_before_accented_letters(self):
        note = named_characters(["José", CYRILLIC_APPLE[:3]])
        self.assertLess(note.index("CYRILLIC"), note.index("é"))

    def test_each_character_is_named_once(self):
        note = named_characters([CYRILLIC_APPLE, "p\u0440"])
        self.assertEqual(note.count("U+0440"), 1, note)
        self.assertEqual(note.count("U+0430"), 1, note)

    def test_more_lookalikes_than_usual_are_all_named_and_said_so(self):
        letters = "\u0430\u0435\u043e\u0440\u0441\u0443\u0445\u0456\u0458\u04cf"  # ten Cyrillic lookalikes
        note = named_characters([letters])
        self.assertNotIn("more", note.split(":")[-1])
        for character in letters:
            self.assertIn(f"U+{ord(character):04X}", note)
        self.assertIn("10 characters that could pass for others", note)

    def test_characters_that_read_as_what_they_are_are_counted_past_the_named_ones(self):
        note = named_characters(["àáâãäå"])
        self.assertTrue(note.endswith(f"and 2 more: {OTHERS}"), note)

    def test_a_long_edit_in_japanese_chinese_or_korean_names_no_more_than_the_usual_few(self):
        for text in ("日本語のテキストを編集します、東京都の天気は晴れです", "这是一个关于数据库备份的中文说明",
                     "한국어 텍스트를 편집합니다"):
            with self.subTest(text=text[:6]):
                note = named_characters([text])
                self.assertEqual(note.count(" U+"), shown_change.NAMED_CHARACTERS, note)
                self.assertNotIn("mixes", note)

    def test_a_russian_word_names_its_letters_drawn_like_latin_ones_and_counts_the_rest(self):
        note = named_characters(["привет"])  # р and е look Latin; п, и, в, т do not
        self.assertLess(note.index("U+0440"), note.index("U+043F"))  # р before п, met first
        self.assertLess(note.index("U+0435"), note.index("U+043F"))
        self.assertTrue(note.endswith(f"and 2 more: {OTHERS}"), note)

    def test_a_japanese_word_with_a_cyrillic_letter_in_it_still_mixes_scripts(self):
        note = named_characters(["カタカナо"])
        self.assertIn("U+043E CYRILLIC SMALL LETTER O", note)
        self.assertIn("mixes", note)

    def test_letters_of_scripts_drawn_like_latin_are_named_whatever_comes_before_them(self):
        note = named_characters(["Müller café ñ pay ꓮꓢꓮꓑ to ᏚᎻᎪᎡ ᴀ"])  # Lisu, Cherokee, a Latin small capital
        for character in "ꓮꓢꓑᏚᎻᎪᎡᴀ":
            self.assertIn(f"U+{ord(character):04X}", note)

    def test_a_combining_mark_is_named_whatever_comes_before_it(self):
        note = named_characters(["José Müller café ñ pay\u0307pal"])  # a dot above the y's neighbour: i̇ for i
        self.assertIn("U+0307 COMBINING DOT ABOVE", note)

    def test_forms_that_fold_to_ascii_and_digits_of_other_scripts_are_named(self):
        note = named_characters(["Ｐａｙ ١٢"])
        for character in "Ｐａｙ١٢":
            self.assertIn(f"U+{ord(character):04X}", note)


class BlanksTest(unittest.TestCase):
    """A character that prints nothing, or a blank, is shown by its code wherever the question holds it."""

    def test_every_blank_is_shown_by_its_code(self):
        for blank in BLANKS:
            with self.subTest(code=f"U+{ord(blank):04X}"):
                self.assertEqual(visible(f"a{blank}b"), f"a⟨U+{ord(blank):04X}⟩b")
                self.assertEqual(visible(f"a{blank}b", span=True), f"a⟨U+{ord(blank):04X}⟩b")

    def test_a_blank_added_to_a_title_is_shown_by_its_code_and_named(self):
        for blank in BLANKS:
            with self.subTest(code=f"U+{ord(blank):04X}"):
                before = article("same")
                message = question(before, dict(before, title="Reset a password" + blank))
                self.assertNotIn(blank, message)
                self.assertIn(f"⟨U+{ord(blank):04X}⟩»", message)
                self.assertIn(f"U+{ord(blank):04X} {unicodedata.name(blank)}", message)

    def test_letters_and_ordinary_symbols_print_as_themselves(self):
        self.assertEqual(visible("José Øre аррӏе €5 ✓"), "José Øre аррӏе €5 ✓")


class QuotesTest(unittest.TestCase):
    """A title, a caller's name or an ID cannot close what the question puts it between."""

    def test_a_title_holding_a_quote_cannot_name_another_article(self):
        title = 'Refund policy" (kb-support/art-00002) and nothing in'
        before = article("a", title=title, id_="art-00001", where="kb-support")
        opening = question(before, dict(before, content="b")).split("\n")[0]
        self.assertEqual(opening, 'Agent "bot" asks to save a change (Edit a knowledge article) to the article '
                                  '"Refund policy⟨U+0022⟩ (kb-support/art-00002) and nothing in" '
                                  '(kb-support/art-00001).')

    def test_a_caller_and_ids_cannot_close_their_quotes_or_parentheses(self):
        before = article("a", id_="x) (kb/art-2", where="kb")
        opening = question(before, dict(before, content="b"), caller='bot" approves').split("\n")[0]
        self.assertEqual(opening.count('"'), 4, opening)
        self.assertIn('Agent "bot⟨U+0022⟩ approves" asks', opening)
        self.assertIn("(kb/x⟨U+0029⟩ ⟨U+0028⟩kb⟨U+002F⟩art-2).", opening)


class ItemQuestionTest(unittest.TestCase):
    """An item's change through the server: what is compared is what is stored; every field's name is its own."""

    def setUp(self):
        self.space = Workspace()
        self.addCleanup(self.space.close)

    def edit(self, channel, item, values, key):
        return {"record_channel_id": channel, "item_id": item, "values": values, "idempotency_key": key,
                "expected_version": read(self.space.records, item, channel)["version"]}

    def message(self, arguments):
        first = self.space.stateless("edit_record_item", arguments)
        self.assertEqual(first["resultType"], "input_required", first)
        return first["inputRequests"][approval.INPUT_KEY]["params"]["message"], first

    def test_a_json_field_whose_keys_only_change_order_is_shown_as_a_change(self):
        self.space.records.call_tool("edit_record_item", self.edit(EVERY_TYPE, "every-1", {"extra": {"a": 1, "b": 2}},
                                                                   "first"))
        arguments = self.edit(EVERY_TYPE, "every-1", {"extra": {"b": 2, "a": 1}}, "reordered")
        message, first = self.message(arguments)
        self.assertNotIn("No field's value changes", message)
        self.assertIn("\nExtra:", message)
        self.assertIn(shown_change.ONLY_ORDER, message)
        saved = answered(self.space.stateless("edit_record_item", arguments, requestState=first["requestState"],
                                              inputResponses=approve()))
        self.assertEqual(list(read(self.space.records, "every-1", EVERY_TYPE)["values"]["extra"]), ["b", "a"])
        self.assertIs(saved["replay"], False)

    def test_field_names_are_unique_even_where_a_label_reads_like_another_field_s_name(self):
        self.space.records.create_channel("lab", "Labels", [
            {"key": "title", "label": "Title", "type": "text"}, {"key": "owner", "label": "Owner", "type": "text"},
            {"key": "owner2", "label": "Owner", "type": "text"},
            {"key": "x", "label": "Owner (owner2)", "type": "text"}])
        self.space.records.create_item("lab", {"title": "Pay", "owner": "ann", "owner2": "bob", "x": "carl"},
                                       item_id="l-1")
        preview = self.space.records.preview("edit_record_item", self.edit("lab", "l-1", {"x": "m"}, "names"))
        names = [name for name, _, _ in preview.before["fields"]]
        self.assertEqual(len(set(names)), len(names), names)
        lines = {}
        for key in ("x", "owner2"):
            message, _ = self.message(self.edit("lab", "l-1", {key: "mallory"}, f"k-{key}"))
            lines[key] = [line for line in message.split("\n") if "mallory" in line][0]
        self.assertNotEqual(lines["x"].split(":")[0], lines["owner2"].split(":")[0], lines)


if __name__ == "__main__":
    unittest.main()
