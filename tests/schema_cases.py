"""Bad and boundary values derived from a tool's listed inputSchema, and the assertion the bad-input tests of
both stores make: the call is rejected as expected and the database is unchanged."""

from tests.helpers import as_json, snapshot


def bad_values(rules):
    """(what is wrong, value, the rule that must reject it) for one argument's schema."""
    yield "null", None, "type"
    if rules["type"] == "integer":
        yield "a bool", True, "type"
        yield "a float", 1.0, "type"
        yield "a string of digits", "5", "type"
        yield "NaN", float("nan"), "type"
        yield "a list", [1], "type"
        yield "below the minimum", rules["minimum"] - 1, "minimum"
        yield "far below", -(10 ** 9), "minimum"
        if "maximum" in rules:
            yield "above the maximum", rules["maximum"] + 1, "maximum"
            yield "far above", 10 ** 9, "maximum"
    if rules["type"] == "object":
        yield "a list", [], "type"
        yield "a string", "{}", "type"
    if rules["type"] == "string":
        yield "an integer", 7, "type"
        yield "a bool", False, "type"
        yield "a list", ["text"], "type"
        yield "an object", {"text": "x"}, "type"
        yield "a lone surrogate", "ab\ud800cd", "encoding"
        if "enum" in rules:
            yield "an unknown resource type", "knowledge-base", "enum"
            return
        if "format" in rules:
            yield "not a date-time", "2026-11-09 09:15", "format"
            yield "a date only", "2026-11-09", "format"
            return
        if rules["minLength"] > 0:
            yield "too short", "x" * (rules["minLength"] - 1), "minLength"
        yield "too long", "x" * (rules["maxLength"] + 1), "maxLength"


def boundary_cases(schema):
    """(name, value, accepted) at every listed bound of every argument."""
    for name, rules in schema["properties"].items():
        if rules["type"] == "integer":
            yield name, rules["minimum"], True
            yield name, rules["minimum"] - 1, False
            if "maximum" in rules:
                yield name, rules["maximum"], True
                yield name, rules["maximum"] + 1, False
        if rules["type"] == "string" and "maxLength" in rules:
            yield name, "w" * rules["maxLength"], True
            yield name, "w" * (rules["maxLength"] + 1), False
            yield name, "w" * rules["minLength"], True
            yield name, "w" * (rules["minLength"] - 1), False


class SchemaDrivenCases:
    """Bad-input cases drawn from a store's own listing; mixed into a TestCase whose setUp sets self.store and
    self.good (tool name -> a valid call that sets every argument)."""

    MIN_CASES = 80

    def test_the_good_calls_succeed_so_each_rejection_below_is_the_bad_value(self):
        for name, arguments in self.good.items():
            self.assertNotIn("error", self.store.call_tool(name, arguments), name)

    def test_every_bad_value_of_every_argument_is_rejected_by_name(self):
        cases = 0
        for tool in self.store.list_tools():
            for argument, rules in tool["inputSchema"]["properties"].items():
                for what, value, rule in bad_values(rules):
                    arguments = dict(self.good[tool["name"]], **{argument: value})
                    with self.subTest(tool=tool["name"], argument=argument, bad=what):
                        self.assertRejectedUnchanged(tool["name"], arguments, "invalid_arguments", argument, rule)
                    cases += 1
        self.assertGreater(cases, self.MIN_CASES)

    def test_every_missing_required_argument_is_named(self):
        for tool in self.store.list_tools():
            for argument in tool["inputSchema"]["required"]:
                arguments = {k: v for k, v in self.good[tool["name"]].items() if k != argument}
                with self.subTest(tool=tool["name"], missing=argument):
                    self.assertRejectedUnchanged(tool["name"], arguments, "invalid_arguments", argument, "required")

    def assertRejectedUnchanged(self, name, arguments, code, argument=None, rule=None):
        before = snapshot(self.store)
        result = self.store.call_tool(name, arguments)
        self.assertEqual(result.get("error"), code, result)
        if argument is not None:
            self.assertEqual((result["argument"], result["rule"]), (argument, rule), result)
            self.assertIn(f'"{argument}"', result["message"])
        as_json(result)
        self.assertEqual(snapshot(self.store), before, "a rejected call wrote something")
