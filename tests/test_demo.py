"""The demo an agent can talk to: ordinary questions find the right help-centre article through the server's
tools, and every schema the server lists is in the portable subset clients read (one type, nullable as anyOf)."""

import os
import tempfile
import unittest

from osfoundry_tools.content import demo, help_center
from osfoundry_tools.core import checks, rejections
from osfoundry_tools.server.options import parse_options
from osfoundry_tools.server.workspace import open_workspace
from osfoundry_tools.stores import kb_store, record_store
from tests.helpers import store_definitions

KB = demo.KNOWLEDGE_BASE


def schemas_in(schema, where):
    """Every schema nested in `schema`, with where it sits, itself first."""
    yield where, schema
    for key, value in schema.get("properties", {}).items():
        yield from schemas_in(value, f"{where}.properties.{key}")
    if isinstance(schema.get("items"), dict):
        yield from schemas_in(schema["items"], f"{where}.items")
    for number, branch in enumerate(schema.get("anyOf", [])):
        yield from schemas_in(branch, f"{where}.anyOf[{number}]")


class DemoQuestionsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.workspace = open_workspace(parse_options(["--demo"]))
        cls.tools = cls.workspace.tools()
        plan = demo.draw_plan(demo.SEED)
        cls.subject_of = {a.article_id: a.written.subject for a in plan.articles}

    @classmethod
    def tearDownClass(cls):
        cls.workspace.close()

    def search(self, query):
        return self.tools.call("search_knowledge_base", {"knowledge_base_id": KB, "query": query, "limit": 3})

    def test_every_question_of_the_help_centre_finds_its_article_first_in_the_served_demo(self):
        for question, subject in help_center.QUESTIONS:
            with self.subTest(question=question):
                (first, *_) = self.search(question)["results"]
                self.assertEqual(self.subject_of[first["article_id"]], subject, first["title"])

    def test_the_two_questions_of_the_issue_are_answered_by_the_articles_people_would_pick(self):
        self.assertEqual(self.search("how do I reset my password")["results"][0]["title"], "Reset your password")
        self.assertEqual(self.search("why was my card declined")["results"][0]["title"], "Why was my card declined?")

    def test_an_answer_cites_readable_english_not_the_simulations_made_up_words(self):
        hit = self.search("connect slack")["results"][0]
        article = self.tools.call("read_knowledge_article", {"knowledge_base_id": KB, "article_id": hit["article_id"]})
        self.assertIn("Slack", article["content"])
        self.assertIn(" the ", article["content"])
        self.assertEqual(article["citation"], hit["citation"])

    def test_a_draft_of_the_demo_is_never_an_answer(self):
        plan = demo.draw_plan(demo.SEED)
        for article in plan.articles:
            if article.status != "published":
                with self.subTest(title=article.title):
                    found = self.tools.call("search_knowledge_base",
                                            {"knowledge_base_id": KB, "query": article.title, "limit": 20})
                    self.assertNotIn(article.article_id, [hit["article_id"] for hit in found["results"]])


class DemoFilesTest(unittest.TestCase):
    def interrupted(self, store, method, calls):
        """`store` whose people's `method` is interrupted (Ctrl-C) at its `calls`-th call."""
        real, made = getattr(store, method), []

        def failing(*arguments, **options):
            made.append(1)
            if len(made) == calls:
                raise KeyboardInterrupt
            return real(*arguments, **options)

        setattr(store, method, failing)
        return store

    def test_a_demo_interrupted_while_it_is_written_into_files_leaves_nothing_of_itself(self):
        plan = demo.draw_plan(demo.SEED)
        with tempfile.TemporaryDirectory() as folder:
            kb_path, records_path = os.path.join(folder, "kb.db"), os.path.join(folder, "records.db")
            with kb_store.connect(kb_path) as kb, record_store.connect(records_path) as records:
                with self.assertRaises(KeyboardInterrupt):
                    demo.write_knowledge_base(self.interrupted(kb, "create_article", 40), plan)
                with self.assertRaises(KeyboardInterrupt):
                    demo.write_bug_tracker(self.interrupted(records, "create_item", 30), plan)
            with kb_store.connect(kb_path) as kb, record_store.connect(records_path) as records:
                self.assertFalse(kb.has_knowledge_base(KB))
                self.assertFalse(records.has_channel(demo.CHANNEL))
            workspace = open_workspace(parse_options(
                ["--demo", "--kb-db", kb_path, "--records-db", records_path]))  # the next start writes it whole
            self.addCleanup(workspace.close)
            self.assertEqual(len(workspace.stores["record"].item_ids(demo.CHANNEL)), demo.ITEMS)
            self.assertNotIn("served as found", workspace.description)


class PortableSchemasTest(unittest.TestCase):
    def test_no_schema_of_any_tool_gives_its_type_as_a_list(self):
        checked = 0
        for name, definition in store_definitions().items():
            for kind in ("inputSchema", "outputSchema"):
                for where, schema in schemas_in(definition[kind], f"{name}.{kind}"):
                    checked += 1
                    with self.subTest(schema=where):
                        self.assertNotIsInstance(schema.get("type"), list)
        self.assertGreater(checked, 50)

    def test_the_argument_check_reads_any_of_as_its_branches_and_names_them_when_none_holds(self):
        nullable = {"anyOf": [{"type": "string", "maxLength": 3}, {"type": "null"}]}
        for fits in ("abc", None):
            checks.check(nullable, fits, "next_before_id")
        for wrong in (5, "abcd", [], {}):
            with self.subTest(wrong=wrong), self.assertRaises(rejections.InvalidArguments) as refused:
                checks.check(nullable, wrong, "next_before_id")
            self.assertIn('argument "next_before_id" must be a string or null; got', str(refused.exception))

    def test_the_next_cursor_is_nullable_as_any_of_a_string_and_null(self):
        schema = store_definitions()["list_record_items"]["outputSchema"]["properties"]["next_before_id"]
        self.assertEqual(schema, {"anyOf": [{"type": "string"}, {"type": "null"}]})


if __name__ == "__main__":
    unittest.main()
