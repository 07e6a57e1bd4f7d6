"""What the approval question may never do: hide a character that changes, show a stored change as none, give
two fields one name, let a title close its quotes. Each test is a change a person could otherwise approve without
seeing it (shown_change.py, approval.request_message, the record store's preview).
"""

import unicodedata
import unittest

from osfoundry_tools.server import approval, shown_change, tokens
from osfoundry_tools.server.shown_change import named_characters, visible
from tests.helpers import KB
from tests.record_helpers import EVERY_TYPE, read
from tests.test_shown_change import changed_lines
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
        note = [line for line in message.split("\n") if line.startswith("  + ")][0]  # Ø (like O) named too
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
                     "한국어 텍스트를 편집합니다", "データベースのバックアップを取ります"):  # ー: KATAKANA-HIRAGANA
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

    def test_bidi_controls_line_separators_and_a_terminal_s_escapes_are_shown_by_their_codes(self):
        for control in ("\u202e", "\u2066", "\u2067", "\u2068", "\u2069", "\u200e", "\u200f", "\u061c", "\u2028",
                        "\u2029", "\u0085", "\x1b", "\x9b", "\x7f"):
            with self.subTest(code=f"U+{ord(control):04X}"):
                before = article("Pay alice.", title="Refund")
                message = question(before, dict(before, content=f"Pay {control}ecila.", title=f"Re{control}fund"))
                self.assertNotIn(control, message)
                self.assertIn(f"«Re⟨U+{ord(control):04X}⟩fund»", message)
                self.assertIn(f"⟨U+{ord(control):04X}⟩ecila»", message)

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


class AnsweredAtOnceTest(unittest.TestCase):
    """What the question could not show truly is never asked: a field the item does not have, a formula, a related
    item that does not exist, a relation to a channel the agent may not see. Each is refused at once, nobody
    asked, nothing written; and values that print alike as JSON are shown as the change they are."""

    def setUp(self):
        self.space = Workspace()
        self.addCleanup(self.space.close)

    def first(self, values, key, grant=None):
        arguments = {"record_channel_id": EVERY_TYPE, "item_id": "every-1", "values": values, "idempotency_key": key,
                     "expected_version": read(self.space.records, "every-1", EVERY_TYPE)["version"]}
        return self.space.stateless("edit_record_item", arguments, grant=grant)

    def test_an_unknown_field_a_formula_or_a_relation_the_question_could_not_show_is_refused_unasked(self):
        only_this = tokens.Grant.of("bot", {"knowledge_base": None, "record": [EVERY_TYPE]}, {tokens.WRITE_SCOPE},
                                    approve_writes=True)
        before = self.space.rows()
        for values, grant in (({"nothing": 1}, None), ({"age": 3}, None), ({"bugs": ["no-such-item"]}, None),
                              ({"bugs": [self.space.items[0]]}, only_this)):
            with self.subTest(values=values):
                refused = self.first(values, f"unasked-{sorted(values)}", grant)
                self.assertEqual(refused["resultType"], "complete", refused)
                self.assertEqual(answered(refused)["error"], "validation_failed")
        self.assertEqual(self.space.rows(), before)

    def test_values_that_print_alike_as_json_are_shown_as_the_change_they_are(self):
        self.space.records.call_tool("edit_record_item", {
            "record_channel_id": EVERY_TYPE, "item_id": "every-1", "idempotency_key": "set", "values": {
                "count": 1, "extra": True, "name": "ann"},
            "expected_version": read(self.space.records, "every-1", EVERY_TYPE)["version"]})
        for values, shown in (({"count": 1.0}, "Count: 1«» -> 1«.0»"), ({"name": "ann "}, "Name: ann«» -> ann«␣»"),
                              ({"extra": "true"}, 'Extra: «»true«» -> «"»true«"»')):
            with self.subTest(values=values):
                first = self.first(values, f"alike-{sorted(values)}")
                self.assertIn(shown, first["inputRequests"][approval.INPUT_KEY]["params"]["message"])


class LabelsThatReadAlikeTest(unittest.TestCase):
    """A label people chose that reads like another of its kind (an option of the same field, a field of the same
    channel) is followed by its value or key, so that the person can tell which the agent chose."""

    def setUp(self):
        self.space = Workspace()
        self.addCleanup(self.space.close)

    def line(self, channel, values, key):
        arguments = {"record_channel_id": channel, "item_id": "one", "values": values, "idempotency_key": key,
                     "expected_version": read(self.space.records, "one", channel)["version"]}
        first = self.space.stateless("edit_record_item", arguments)
        self.assertEqual(first["resultType"], "input_required", first)
        message = first["inputRequests"][approval.INPUT_KEY]["params"]["message"]
        return message.split("\n")[2]  # the first changed field

    def test_options_whose_labels_read_alike_are_each_followed_by_their_value(self):
        options = [{"value": "done", "label": "Done"}, {"value": "fake", "label": "D\u043ene"},  # a Cyrillic o
                   {"value": "wide", "label": "\uff24one"}, {"value": "spaced", "label": "Done "},  # fullwidth D
                   {"value": "hidden", "label": "Do\u200bne"}, {"value": "new", "label": "New"}]
        self.space.records.create_channel("alike", "Alike", [
            {"key": "title", "label": "Title", "type": "text"},
            {"key": "status", "label": "Status", "type": "select", "options": options}])
        self.space.records.create_item("alike", {"title": "Pay", "status": "new"}, item_id="one")
        lines = {option["value"]: self.line("alike", {"status": option["value"]}, option["value"])
                 for option in options[:5]}
        for value, line in lines.items():
            with self.subTest(value=value):
                self.assertIn(f"({value})»", line)
                self.assertTrue(line.startswith("Status: «New» -> «"), line)  # New reads like no other label
        self.assertEqual(len(set(lines.values())), len(lines))

    def test_fields_whose_labels_read_alike_are_each_named_with_their_key(self):
        labels = {"owner": "Owner", "cyrillic": "\u041ewner", "spaced": "Owner  ", "marked": "Owner\u0358"}
        self.space.records.create_channel("heads", "Heads", [{"key": "title", "label": "Title", "type": "text"}] + [
            {"key": key, "label": label, "type": "text"} for key, label in labels.items()])
        self.space.records.create_item("heads", {"title": "Pay"}, item_id="one")
        names = {key: self.line("heads", {key: "mallory"}, key).split(": ")[0] for key in labels}
        for key, name in names.items():
            with self.subTest(key=key):
                self.assertTrue(name.endswith(f" ({key})"), name)
        self.assertEqual(len(set(names.values())), len(names))

    def test_a_label_holding_a_letter_not_known_to_read_as_itself_is_followed_by_its_value(self):
        self.space.records.create_channel("lisu", "Lisu", [
            {"key": "title", "label": "Title", "type": "text"},
            {"key": "status", "label": "Status", "type": "select", "options": [
                {"value": "done", "label": "DONE"}, {"value": "fake", "label": "\ua4d3ONE"}]}])  # Lisu DA
        self.space.records.create_item("lisu", {"title": "Pay"}, item_id="one")
        self.assertIn("«\ua4d3ONE (fake)»", self.line("lisu", {"status": "fake"}, "fake"))
        self.assertIn("«DONE»", self.line("lisu", {"status": "done"}, "done"))

    def test_labels_in_russian_japanese_or_with_accents_are_shown_alone(self):
        options = [{"value": "ru", "label": "Готово"}, {"value": "ja", "label": "完了"},
                   {"value": "fr", "label": "Terminé"}, {"value": "de", "label": "Größe"},
                   {"value": "en", "label": "Termine"}]
        self.space.records.create_channel("world", "World", [
            {"key": "title", "label": "Title", "type": "text"},
            {"key": "status", "label": "Статус", "type": "select", "options": options}])
        self.space.records.create_item("world", {"title": "Pay"}, item_id="one")
        for option in options:
            with self.subTest(label=option["label"]):
                line = self.line("world", {"status": option["value"]}, option["value"])
                self.assertEqual(line, f"Статус: (empty) -> «{option['label']}»")

    def test_a_multi_select_label_that_could_pass_for_two_is_shown_in_a_list(self):
        self.space.records.create_channel("tags", "Tags", [
            {"key": "title", "label": "Title", "type": "text"},
            {"key": "tags", "label": "Tags", "type": "multi_select", "options": [
                {"value": "a", "label": "UI"}, {"value": "b", "label": "DB"},
                {"value": "ab", "label": "UI\u201a DB"}]}])  # a single low quotation mark, drawn like a comma
        self.space.records.create_item("tags", {"title": "Pay"}, item_id="one")
        self.assertIn('«["UI\u201a DB"]»', self.line("tags", {"tags": ["ab"]}, "ab"))
        self.assertIn("«UI, DB»", self.line("tags", {"tags": ["a", "b"]}, "a-b"))

    def test_values_stored_alike_under_labels_shown_alike_are_told_apart_in_ascii(self):
        self.space.records.create_channel("twins", "Twins", [
            {"key": "title", "label": "Title", "type": "text"},
            {"key": "status", "label": "Status", "type": "select", "options": [
                {"value": "done", "label": "Done"}, {"value": "d\u043ene", "label": "Done"}]}])
        self.space.records.create_item("twins", {"title": "Pay", "status": "done"}, item_id="one")
        line = self.line("twins", {"status": "d\u043ene"}, "twin")
        self.assertIn('(stored as "«done»") -> ', line)
        self.assertTrue(line.endswith('(stored as "«d\\u043ene»")'), line)


class NamesInTheOpeningTest(unittest.TestCase):
    """A title, an ID or the agent's name that could pass for another is named under the opening sentence; one in
    Russian, Japanese or with accents is not."""

    def opening_note(self, title, id_="art-1"):
        before = article("a", title=title, id_=id_)
        return question(before, dict(before, content="b")).split("\n")[1]

    def test_a_title_that_could_pass_for_another_is_named_under_the_opening(self):
        for title, character in (("R\u0435fund policy", "\u0435"), ("\u0430\u0440\u0440\u04cf\u0435 refunds", "\u04cf"),
                                 ("\uff32efund policy", "\uff32"), ("Refund policy \u0661", "\u0661"),
                                 ("\u1d18\u1d00\u028f refunds", "\u1d00"), ("\ua4d3ONE", "\ua4d3")):
            with self.subTest(title=title):
                note = self.opening_note(title)
                self.assertIn(f"U+{ord(character):04X} {unicodedata.name(character)}", note)

    def test_an_id_that_could_pass_for_another_is_named_too(self):
        self.assertIn("U+041E CYRILLIC CAPITAL LETTER O", self.opening_note("Refund policy", id_="art-0\u041e1"))

    def test_a_title_in_russian_japanese_or_with_accents_has_no_note(self):
        for title in ("Сброс пароля", "パスワードの再設定", "Réinitialiser le mot de passe", "Größe ändern",
                      "Søknad om refusjon", "Ορισμός κωδικού"):
            with self.subTest(title=title):
                self.assertEqual(self.opening_note(title), "")


class MarkupTest(unittest.TestCase):
    """Nothing in the question can be rendered as markup that hides or disguises text by a client that renders
    Markdown or HTML: character references, tags and comments, links and images, backslash escapes; and within a
    change, the delimiters of emphasis, code and strikethrough, which would vanish into the style they make."""

    def new_line(self, new, old="Plain."):
        return changed_lines(question(article(old), article(new)))[1]

    def test_references_tags_comments_links_and_escapes_are_shown_by_their_codes(self):
        for text, raw in (("a &#8238; b", "&#8238;"), ("a &#x202e; b", "&#x202e;"), ("AT&amp;T", "&amp;"),
                          ("x <!-- hidden --> y", "<!--"), ("<img src=https://evil/t.png>", "<img"),
                          ("</details>", "</"), ("<https://evil.example>", "<h"),
                          ("[bank.example](https://evil.example)", "]("), ("![x](https://evil/t.png)", "]("),
                          ("[x][ref]", "]["), ("[ref]: https://evil", "]:"), ("C:\\\\server", "\\\\")):
            with self.subTest(text=text):
                line = self.new_line(text)
                self.assertNotIn(raw, line)

    def test_delimiters_within_a_change_are_shown_by_their_codes(self):
        for text, code in (("**bold**", "⟨U+002A⟩"), ("`code`", "⟨U+0060⟩"), ("~~gone~~", "⟨U+007E⟩"),
                           ("_stressed_", "⟨U+005F⟩")):
            with self.subTest(text=text):
                line = self.new_line(text)
                self.assertIn(code, line)
                self.assertNotIn(text[0], line)

    def test_ordinary_text_with_these_characters_reads_as_written(self):
        for text in ("a < b and c > d", "AT&T & co", "snake_case_name", "see [1] and [2]", "C:\\Users\\ann",
                     "£5 & 10%"):
            with self.subTest(text=text):
                self.assertIn(text, self.new_line(text, old=text + " old"))

    def test_a_label_or_an_id_cannot_end_in_markup_with_what_follows_it(self):
        line = shown_change.item_change(
            {"fields": [["[x]", "a", '"a"']]}, {"fields": [["[x]", "b", '"b"']]})[0]
        self.assertTrue(line.startswith("[x⟨U+005D⟩:"), line)
        before = article("a", id_="b>", where="kb<")
        self.assertIn("(kb⟨U+003C⟩/b>)", question(before, dict(before, content="b")).split("\n")[0])


class ReadAlikeChangesTest(unittest.TestCase):
    """A change whose two sides read alike says so; one a client could lay out otherwise is never put on one line;
    nothing the agent writes can pass for the question's own marks or spill over other lines."""

    def test_two_sides_that_read_alike_are_said_to(self):
        for old, new in (("café", "cafe\u0301"), ("Pay now", "P\u0430y now"), ("Pay 10", "Pay \u0661\u0660"),
                         ("Pay", "\uff30ay")):
            with self.subTest(new=new):
                message = question(article(old), article(new))
                self.assertIn(shown_change.READ_ALIKE, message)

    def test_an_ordinary_edit_is_not_said_to_read_alike(self):
        for old, new in (("resume", "résumé"), ("Сброс", "Сброс пароля"), ("パスワード", "パスワードの再設定")):
            with self.subTest(new=new):
                self.assertNotIn(shown_change.READ_ALIKE, question(article(old), article(new)))

    def test_a_value_or_a_label_in_a_right_to_left_script_is_shown_as_a_pair(self):
        lines = shown_change.value_change("Note", "\u05e9\u05dc\u05d5\u05dd", "\u05e2\u05d5\u05dc\u05dd")
        self.assertEqual(lines[:3], ["Note:", "- «\u05e9\u05dc\u05d5\u05dd»", "+ «\u05e2\u05d5\u05dc\u05dd»"])
        self.assertEqual(shown_change.value_change("\u05de\u05d7\u05d9\u05e8", "10", "20")[1:], ["- «10»", "+ «20»"])
        self.assertEqual(shown_change.value_change("Price", "10", "\u0662\u0660")[:3],
                         ["Price:", "- «10»", "+ «\u0662\u0660»"])
        self.assertEqual(shown_change.value_change("Price", "10", "20"), ["Price: «10» -> «20»"])

    def test_marks_stacked_past_a_few_or_on_nothing_are_shown_by_their_codes(self):
        line = changed_lines(question(article("Pay."), article("Pay" + "\u0301" * 40 + ".")))[1]
        self.assertLessEqual(line.count("\u0301"), shown_change.STACKED_MARKS)
        self.assertIn("⟨U+0301⟩", line)
        self.assertIn("«⟨U+0301⟩»", changed_lines(question(article("cafe"), article("cafe\u0301")))[1])
        self.assertIn("Vie\u0323\u0302t", changed_lines(question(article("Viet"), article("Vie\u0323\u0302t")))[1])

    def test_an_ellipsis_the_agent_writes_cannot_pass_for_text_left_out(self):
        line = changed_lines(question(article("Pay."), article("Pay…(2,000 unchanged characters)…now.")))[1]
        self.assertNotIn("…", line)
        long = "A title " + "x" * approval.LINE_CHARACTERS
        opening = question(article("a", title=long), article("b", title=long)).split("\n")[0]
        self.assertIn("x…\" (", opening)


if __name__ == "__main__":
    unittest.main()
