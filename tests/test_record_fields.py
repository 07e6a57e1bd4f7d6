"""Each of the 16 field types accepts what it should and refuses the rest with a message an agent can act on."""

import datetime
import unittest

from tests.helpers import UTC
from tests.record_helpers import BUGS, EVERY_TYPE, EVERY_TYPE_FIELDS, bug_store, edit, read
from osfoundry_tools.stores.record_fields import FIELD_TYPES, Field, check_value, formula_value, parse_schema

FIELDS = {f.key: f for f in parse_schema(EVERY_TYPE_FIELDS)}

ACCEPTED = {  # field key -> values that must pass
    "name": ["a", "ten chars!", "日本語"],
    "count": [-5, 0, 5, 2.5, -0.0],
    "due": ["2026-11-13", "2024-02-29"],
    "done": [True, False],
    "contact": ["aiko@example.com", "a.b+c@mail.example.co.jp"],
    "phone": ["+81 3 1234 5678", "(555) 123-4567", "5551234"],
    "site": ["https://example.com", "http://localhost:8080/a?b=c"],
    "stage": ["todo", "doing"],
    "tags": [["ui"], ["ui", "db"]],
    "price": [0, 19.99, 1000],
    "share": [0, 50.5, 100],
    "stars": [1, 3],
    "bugs": [["itm-00001"], ["x", "y"]],  # existence is the store's check, below
    "files": [[{"name": "log.txt", "url": "https://files.example.com/log.txt"}]],
    "extra": [{"a": [1, 2, None]}, [1, "two"], "text", 3, True],
}

REFUSED = {  # field key -> (value, the exact message)
    "name": [(7, 'values.name must be text, got 7'),
             ("eleven char", "values.name must be at most 10 characters, got 11"),
             ("a\ud800", 'values.name must be valid Unicode text without NUL characters, got "a?"')],
    "count": [(6, "values.count must be between -5 and 5, got 6"),
              (-5.5, "values.count must be between -5 and 5, got -5.5"),
              ("3", 'values.count must be a number between -5 and 5, got "3"'),
              (True, "values.count must be a number between -5 and 5, got true"),
              (float("nan"), "values.count must be a number between -5 and 5, got NaN"),
              (float("inf"), "values.count must be a number between -5 and 5, got Infinity"),
              (10 ** 400, 'values.count must be a number between -5 and 5, got "' + "1" + "0" * 79 + '…"')],
    "due": [("Friday", 'values.due must be a date as YYYY-MM-DD, got "Friday"'),
            ("2026-02-30", 'values.due must be a date as YYYY-MM-DD that the calendar has (2026-02 has 28 days), '
                           'got "2026-02-30"'),
            ("2028-02-30", 'values.due must be a date as YYYY-MM-DD that the calendar has (2028-02 has 29 days), '
                           'got "2028-02-30"'),
            ("2026-13-01", 'values.due must be a date as YYYY-MM-DD that the calendar has (a month is 01 to 12), '
                           'got "2026-13-01"'),
            ("0000-01-01", 'values.due must be a date as YYYY-MM-DD that the calendar has (a year is 0001 or '
                           'later), got "0000-01-01"'),
            ("2026-11-13T10:00:00Z", 'values.due must be a date as YYYY-MM-DD, got "2026-11-13T10:00:00Z"'),
            ("２０２６-11-13", 'values.due must be a date as YYYY-MM-DD, got "２０２６-11-13"')],
    "done": [("true", 'values.done must be true or false, got "true"'),
             (1, "values.done must be true or false, got 1")],
    "contact": [("aiko", 'values.contact must be an email address such as name@example.com, got "aiko"'),
                ("a@b", 'values.contact must be an email address such as name@example.com, got "a@b"'),
                ("a b@example.com", 'values.contact must be an email address such as name@example.com, '
                                    'got "a b@example.com"')],
    "phone": [("call me", 'values.phone must be a phone number of 7 to 15 digits such as +81 3 1234 5678, '
                          'got "call me"'),
              ("123", 'values.phone must be a phone number of 7 to 15 digits such as +81 3 1234 5678, got "123"')],
    "site": [("example.com", 'values.site must be an http or https URL, got "example.com"'),
             ("ftp://example.com", 'values.site must be an http or https URL, got "ftp://example.com"'),
             ("javascript:alert(1)", 'values.site must be an http or https URL, got "javascript:alert(1)"')],
    "stage": [("To do", 'values.stage must be one of the option values, got "To do"'),
              ("TODO", 'values.stage must be one of the option values, got "TODO"'),
              (["todo"], 'values.stage must be one of the option values, got ["todo"]')],
    "tags": [("ui", 'values.tags must be a list of option values, got "ui"'),
             (["ui", "Database"], 'values.tags must hold only option values, got "Database"'),
             (["ui", "ui"], 'values.tags must not repeat an option, got ["ui", "ui"]')],
    "price": [(19.999, "values.price must be an amount with at most 2 decimal places, got 19.999"),
              (-1, "values.price must be at least 0, got -1")],
    "share": [(100.5, "values.share must be between 0 and 100, got 100.5")],
    "stars": [(4, "values.stars must be a whole number of stars from 1 to 3, got 4"),
              (0, "values.stars must be a whole number of stars from 1 to 3, got 0"),
              (2.0, "values.stars must be a whole number of stars from 1 to 3, got 2.0"),
              (True, "values.stars must be a whole number of stars from 1 to 3, got true")],
    "bugs": [("itm-00001", 'values.bugs must be a list of at most 100 distinct item IDs from record channel "bugs", '
                           'got "itm-00001"'),
             (["a", "a"], 'values.bugs must be a list of at most 100 distinct item IDs from record channel "bugs", '
                          'got ["a", "a"]')],
    "files": [([{"name": "x"}], 'values.files must be a list of at most 20 files, each {"name": text, "url": an '
                                'http or https URL}, got [{"name": "x"}]'),
              ([{"name": "x", "url": "https://e.com/x", "size": 1}], 'values.files must be a list of at most 20 '
               'files, each {"name": text, "url": an http or https URL}, got [{"name": "x", "url": "https://e.com/x", '
               '"size": 1}]')],
    "extra": [(float("nan"), "values.extra must be strict JSON (no NaN or infinities), got NaN"),
              ({"a": "x" * 10_000}, "values.extra must be JSON of at most 10000 characters, got 10009")],
    "age": [(3, "values.age is a formula field and is computed, not written")],
}


class Option(str):
    """A str of another type, holding an option's value."""


HOSTILE = [None, "", [], {}, True, 0, -0.0, 7, 2 ** 63, 2 ** 64, 10 ** 400, float("nan"), "x" * 11, "a\ud800", "a\x00",
           "2026-02-30", "2026-1-1", "2026-11-13 ", "2026-11-13\n", "２０２６-１１-１３", "todo", Option("todo"),
           ("todo",), ["todo"], {"todo": 1}, "To do", "a", 1.5, 3.0]


class EveryTypeTest(unittest.TestCase):
    def test_the_tables_cover_all_16_types(self):
        self.assertEqual(len(FIELD_TYPES), 16)
        self.assertEqual(sorted(f.type for f in FIELDS.values()), sorted(FIELD_TYPES))
        self.assertEqual(set(REFUSED), set(FIELDS))
        self.assertEqual(set(ACCEPTED), set(FIELDS) - {"age"})

    def test_accepted_values_pass(self):
        for key, values in ACCEPTED.items():
            for value in values:
                with self.subTest(field=key, value=value):
                    self.assertIsNone(check_value(FIELDS[key], value))

    def test_refused_values_fail_with_their_message(self):
        for key, cases in REFUSED.items():
            for value, message in cases:
                with self.subTest(field=key, value=value):
                    failure = check_value(FIELDS[key], value)
                    self.assertIsNotNone(failure)
                    self.assertEqual((failure.key, failure.message), (key, message))

    def test_the_quick_test_passes_only_what_check_value_saves_and_the_plain_accepted_values(self):
        quick = {"text", "number", "percentage", "rating", "date", "boolean", "select"}  # the types it judges
        for key, field in FIELDS.items():
            for value in HOSTILE + [v for _, v in REFUSED.get(key, [])] + ACCEPTED.get(key, []):
                with self.subTest(field=key, value=value):
                    if field.passes(value):
                        self.assertIsNone(check_value(field, value))
                        self.assertIn(field.type, quick)
            for value in ACCEPTED.get(key, []) if field.type in quick else []:  # sound values take the quick way
                with self.subTest(field=key, accepted=value):
                    self.assertTrue(field.passes(value))

    def test_an_agents_values_are_judged_as_check_value_judges_each(self):  # the channel's quick tests, a select's
        store, _, _ = bug_store()  # written out in _validate, refuse and pass what check_value does
        with store.database.read() as connection:
            channel = store._granted_channel(connection, EVERY_TYPE)
            for key, field in FIELDS.items():
                if field.is_unique or field.type == "relation":  # the stored values judge those too (StoredRulesTest)
                    continue
                for value in HOSTILE + [v for v, _ in REFUSED.get(key, [])] + ACCEPTED.get(key, []):
                    with self.subTest(field=key, value=value):
                        failure = check_value(field, value)
                        self.assertEqual(store._validate(connection, channel, {key: value}, None, agent=True),
                                         [] if failure is None else [failure])

    def test_a_label_is_never_taken_for_its_value(self):
        for key in ("stage", "tags"):
            for option in FIELDS[key].options():
                value = option["label"] if key == "stage" else [option["label"]]
                with self.subTest(label=option["label"]):
                    self.assertIsNotNone(check_value(FIELDS[key], value))

    def test_null_empty_text_and_empty_list_clear_an_optional_field_but_not_a_required_one(self):
        for empty in (None, "", []):
            with self.subTest(value=empty):
                self.assertIsNone(check_value(FIELDS["count"], empty))
                self.assertEqual(check_value(FIELDS["name"], empty).message,
                                 "values.name is required and cannot be cleared")

    def test_a_range_failure_carries_the_range_and_an_option_failure_the_values_and_labels(self):
        self.assertEqual(check_value(FIELDS["count"], 9).allowed, {"min": -5, "max": 5})
        self.assertEqual(check_value(FIELDS["price"], -1).allowed, {"min": 0})
        stage = check_value(FIELDS["stage"], "To do")
        self.assertEqual(stage.allowed, {"allowed": ["todo", "doing"]})
        self.assertEqual(stage.labels, {"todo": "To do", "doing": "Doing"})
        self.assertEqual(check_value(FIELDS["name"], "x" * 11).allowed, {"max_length": 10})


class FormulaTest(unittest.TestCase):
    def test_days_since_creation_counts_whole_days_on_the_clock_given(self):
        created = datetime.datetime(2026, 11, 1, 12, tzinfo=UTC)
        times = {"created_at": created, "updated_at": created}
        for now, days in ((created, 0), (created + datetime.timedelta(hours=35), 1),
                          (created + datetime.timedelta(days=9), 9)):
            self.assertEqual(formula_value(FIELDS["age"], {}, times, now), days)

    def test_days_until_a_date_field_and_null_while_the_date_is_unset(self):
        until = Field.from_definition({"key": "left", "label": "Left", "type": "formula",
                                       "expression": "days_until(due)"})
        now = datetime.datetime(2026, 11, 10, 9, tzinfo=UTC)
        self.assertEqual(formula_value(until, {"due": "2026-11-13"}, {}, now), 3)
        self.assertEqual(formula_value(until, {"due": "2026-11-10"}, {}, now), 0)
        self.assertIsNone(formula_value(until, {}, {}, now))

    def test_a_read_computes_the_formula_from_the_stores_clock(self):
        store, clock, _ = bug_store()
        self.assertEqual(read(store, "every-1", EVERY_TYPE)["values"]["age"], 0)
        clock.advance(3 * 86400)
        self.assertEqual(read(store, "every-1", EVERY_TYPE)["values"]["age"], 3)
        self.assertNotIn("age", store.item(EVERY_TYPE, "every-1")["values"], "formulas are never stored")


class StoredRulesTest(unittest.TestCase):
    """Rules only the database can judge: uniqueness and related items that exist."""

    def setUp(self):
        self.store, self.clock, self.ids = bug_store()

    def test_a_unique_value_another_item_holds_is_refused_and_naming_its_holder(self):
        result = edit(self.store, self.ids[1], 1, "k1", ticket="BUG-1")
        self.assertEqual(result["fields"], [{
            "key": "ticket", "message": f'values.ticket must be unique in this channel, got "BUG-1", which item '
                                        f'{self.ids[0]} already has'}])

    def test_an_item_may_keep_its_own_unique_value_and_a_freed_value_may_be_taken(self):
        self.assertEqual(edit(self.store, self.ids[0], 1, "k1", ticket="BUG-1")["version"], 2)
        self.store.delete_item(BUGS, self.ids[0])
        self.assertEqual(edit(self.store, self.ids[1], 1, "k2", ticket="BUG-1")["version"], 2)

    def test_an_edit_that_changes_a_unique_value_frees_the_old_one_and_claims_the_new(self):
        self.assertEqual(edit(self.store, self.ids[0], 1, "k1", ticket="BUG-900")["version"], 2)
        self.assertEqual(edit(self.store, self.ids[1], 1, "k2", ticket="BUG-1")["version"], 2)
        self.assertEqual(edit(self.store, self.ids[2], 1, "k3", ticket="BUG-900")["error"], "validation_failed")
        self.store.edit_item(BUGS, self.ids[0], {"ticket": "BUG-901"})  # a person's save re-indexes too
        self.assertEqual(edit(self.store, self.ids[2], 1, "k4", ticket="BUG-900")["version"], 2)

    def test_an_edit_of_other_fields_keeps_the_items_claim_on_its_unique_value(self):
        self.assertEqual(edit(self.store, self.ids[0], 1, "k1", status="triaged")["version"], 2)
        self.store.edit_item(BUGS, self.ids[0], {"title": "Renamed"})
        self.assertEqual(edit(self.store, self.ids[1], 1, "k2", ticket="BUG-1")["error"], "validation_failed")

    def test_unique_values_compare_numbers_by_value(self):
        self.store.create_channel("counted", "Counted", [{"key": "n", "label": "N", "type": "number",
                                                         "is_unique": True}])
        self.store.create_item("counted", {"n": 3}, item_id="c-1")
        self.store.create_item("counted", {"n": 4}, item_id="c-2")
        result = edit(self.store, "c-2", 1, "k1", channel="counted", n=3.0)
        self.assertEqual(result["error"], "validation_failed")

    def test_relations_must_name_live_items_of_the_related_channel(self):
        self.store.delete_item(BUGS, self.ids[2])
        for value, missing in ((["nowhere"], '"nowhere"'), ([self.ids[0], "ops-1"], '"ops-1"'),
                               ([self.ids[2]], f'"{self.ids[2]}"')):
            result = edit(self.store, "every-1", 1, f"k-{value}", channel=EVERY_TYPE, bugs=value)
            with self.subTest(value=value):
                self.assertEqual(result["fields"][0]["message"],
                                 f'values.bugs must name items that exist in record channel "bugs", got {missing}')
        self.assertEqual(edit(self.store, "every-1", 1, "k-ok", channel=EVERY_TYPE, bugs=self.ids[:2])["version"], 2)


class DefinitionTest(unittest.TestCase):
    """A person's schema is checked when the channel is made, so a bad one can never reach an agent."""

    def test_unsound_definitions_are_refused_with_the_reason(self):
        cases = [
            ({"key": "Status", "type": "text"}, "lowercase"),
            ({"key": "x", "type": "status"}, "types are"),
            ({"key": "x", "type": "text", "max": 3}, "takes only"),
            ({"key": "x", "type": "select", "options": []}, "options"),
            ({"key": "x", "type": "select", "options": [{"value": "a", "label": "A"}, {"value": "a", "label": "B"}]},
             "distinct"),
            ({"key": "x", "type": "select", "options": [{"value": "a"}]}, "each option is"),
            ({"key": "x", "type": "select", "options": [{"value": "a", "label": [1, 2]}]}, "must be 1 to 200"),
            ({"key": "x", "type": "select", "options": [{"value": "a", "label": "A", "color": 3}]}, "colour"),
            ({"key": "x", "type": "select", "options": [{"value": "a", "label": "A", "extra": 1}]}, "each option"),
            ({"key": "x", "type": "select", "options": "a"}, "options must be a list"),
            ({"key": "x", "type": "select", "options": [{"value": f"v{n}", "label": "L"} for n in range(101)]},
             "1 to 100"),
            ({"key": "x", "label": "bad\ud800", "type": "text"}, "valid Unicode"),
            ({"key": "x", "label": "nul\x00", "type": "text"}, "NUL"),
            ({"key": "x", "type": "text", "max_length": 1.5}, "whole number"),
            ({"key": "x", "type": "text", "max_length": -5}, "whole number"),
            ({"key": "x", "type": "rating", "max_stars": 2.5}, "whole number"),
            ({"key": "x", "type": "number", "min": 5, "max": 1}, "must not exceed"),
            ({"key": "x", "type": "text", "is_required": "false"}, "true or false"),
            ("not a definition", "must be an object"),
            ({"key": "x", "type": "json", "is_unique": True}, "cannot be unique"),
            ({"key": "x", "type": "formula", "expression": "1 + 1"}, "days_since"),
            ({"key": "x", "type": "formula", "expression": "days_until(created_at)"}, "names neither"),
            ({"key": "x", "type": "relation"}, "related_channel_id"),
            ({"key": "x", "type": "number", "min": "0"}, "must be a finite number"),
        ]
        for definition, reason in cases:
            with self.subTest(definition=definition):
                with self.assertRaisesRegex(ValueError, reason):
                    parse_schema([definition])

    def test_more_fields_than_a_schema_may_hold_are_refused(self):
        with self.assertRaisesRegex(ValueError, "at most 64"):
            parse_schema([{"key": f"f{n}", "type": "text"} for n in range(65)])

    def test_repeated_keys_and_a_relation_to_a_missing_channel_are_refused(self):
        with self.assertRaisesRegex(ValueError, "repeated: a"):
            parse_schema([{"key": "a", "type": "text"}, {"key": "a", "type": "date"}])
        store, _, _ = bug_store()
        with self.assertRaisesRegex(ValueError, "does not exist"):
            store.create_channel("x", "X", [{"key": "r", "type": "relation", "related_channel_id": "nope"}])


if __name__ == "__main__":
    unittest.main()
