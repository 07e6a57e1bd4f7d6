"""Questions ranked by their subject, the same way on sqlite and PostgreSQL (make postgres runs these too).

A query's function words are left out when it holds other words and kept when it holds nothing else, whatever the
size of the knowledge base; both engines index every word, so a question of function words alone finds the same
articles on both. Where articles have headings, the title and the one section (a heading and its text) that holds
the question's words best count beside the whole text. A web address or a Markdown link's target is no word of
the page. A file of schema 4 is upgraded.
"""

import os
import sqlite3
import tempfile
import unittest
from unittest import mock

from tests.postgres_helpers import default_location, sqlite_only
from osfoundry_tools.stores import kb_search
from osfoundry_tools.stores import kb_store

KB = "kb-docs"
CONTRIBUTING = ("How to contribute", "How do I run the tests? How do you want me to write a change? If you can, "
                "do it in a branch, and we will review it when it is ready. I do what the guide says.")
PROXIES = ("Proxies", "Route requests through a proxy server with the proxy argument of the client.")


def store_of(*articles):
    """A new store on this run's engine holding KB with `articles` (title, content), IDs a-0, a-1 ..."""
    store = kb_store.connect(default_location())
    store.create_knowledge_base(KB, "Docs")
    for number, (title, content) in enumerate(articles):
        store.create_article(KB, title, content, article_id=f"a-{number}")
    return store


def found(store, query, limit=10):
    result = store.call_tool("search_knowledge_base", {"knowledge_base_id": KB, "query": query, "limit": limit})
    return [hit["article_id"] for hit in result["results"]]


class FunctionWordsTest(unittest.TestCase):
    def setUp(self):
        self.store = store_of(CONTRIBUTING, PROXIES)
        self.addCleanup(self.store.close)

    def test_a_question_finds_what_its_subject_finds_however_it_is_worded(self):
        for question in ("How do I use a proxy?", "how can i use proxies", "Use a proxy", "proxy"):
            with self.subTest(question=question):
                self.assertEqual(found(self.store, question), ["a-1"])

    def test_a_page_full_of_function_words_no_longer_comes_first_in_a_small_knowledge_base(self):
        self.assertEqual(found(self.store, "How do I run the proxy?")[0], "a-1")

    def test_a_query_of_function_words_alone_keeps_them_and_finds_the_articles_holding_them(self):
        self.assertEqual(found(self.store, "how do I"), ["a-0"])
        self.assertEqual(set(found(self.store, "with the")), {"a-0", "a-1"})

    def test_contractions_are_function_words_too(self):
        self.assertEqual(found(self.store, "I don't know how to use a proxy"), found(self.store, "know use proxy"))

    def test_a_question_of_function_words_only_keeps_them_and_phrasal_particles_are_subject_words(self):
        self.assertEqual(kb_search.subject_words(["how", "do", "i", "use", "a", "proxy"]), ["use", "proxy"])
        self.assertEqual(kb_search.subject_words(["how", "to"]), ["how", "to"])
        self.assertNotIn("up", kb_search.FUNCTION_WORDS)  # set up, sign up: the particle is the subject
        self.assertNotIn("down", kb_search.FUNCTION_WORDS)


class OutlineTest(unittest.TestCase):
    """Where articles have headings: the page whose title or heading names the subject comes first, above a page
    that only holds the words in its text (which bm25 alone would put first)."""

    OTHERS = (("Fonts", "Pick a font for the text."), ("Install", "Run pip install to get it."),
              ("Search", "Search the site for words."), ("Blog", "Write posts on a blog."))

    def test_a_title_holding_the_subject_outranks_a_text_that_repeats_a_word_of_it(self):
        store = store_of(("Configuration reference", "## Options\n\nEach option may change the look. The colour "
                          "option takes a name. " * 3),
                         ("Colours", "## Primary\n\nSet primary in the palette; pick a colour name."), *self.OTHERS)
        self.addCleanup(store.close)
        self.assertEqual(found(store, "How do I set the colour?")[:2], ["a-1", "a-0"])

    def test_a_heading_holding_the_question_words_together_brings_up_a_page_with_a_broader_title(self):
        store = store_of(("Settings", "## Options\n\nA dark background, a mode for print, and a toggle for the "
                          "menu. Dark text in dark mode."),
                         ("Reference", "## Fonts\n\nPick a font.\n\n## Dark mode toggle\n\nAdd a second palette "
                          "with a switch."), *self.OTHERS)
        self.addCleanup(store.close)
        self.assertEqual(found(store, "dark mode toggle")[:2], ["a-1", "a-0"])

    def test_the_section_holding_the_question_words_together_outranks_a_page_holding_them_scattered(self):
        scattered = "## Install\n\nPick a proxy.\n\n## Logging\n\nSet a timeout.\n\n## Retries\n\nAuth headers.\n"
        together = "## Clients\n\nA client keeps connections.\n\n## Setup\n\nGive the proxy a timeout and auth.\n"
        store = store_of(("Guide", scattered), ("Advanced", together), *self.OTHERS)
        self.addCleanup(store.close)
        self.assertEqual(found(store, "How do I add auth and a timeout to a proxy?")[:2], ["a-1", "a-0"])

    def test_a_rare_word_few_sections_hold_outweighs_common_words_that_fill_a_page_and_its_title(self):
        colours = "".join(f"## {name} colour\n\nPick the {name} colour from the palette.\n\n" for name in
                          ("Primary", "Accent", "Background", "Text", "Link", "Border"))
        reference = ("## Buttons\n\nA button has a label.\n\n## Admonitions\n\nAn admonition takes the colour you "
                     "give it.\n\n## Tables\n\nA table has rows.\n")
        store = store_of(("Colour palette", colours), ("Reference", reference), *self.OTHERS)
        self.addCleanup(store.close)
        self.assertEqual(found(store, "How do I set the colour of an admonition from the palette?"), ["a-1", "a-0"])

    def test_the_same_words_in_a_fenced_code_comment_make_no_section(self):
        coded = "## Examples\n\nSee below.\n\n```sh\n# proxy timeout\nrun it\n```\n\nMore words here for length.\n"
        store = store_of(("Guide", coded), ("Proxies", "## Proxy timeout\n\nSet it once."), *self.OTHERS)
        self.addCleanup(store.close)
        self.assertEqual(found(store, "proxy timeout")[0], "a-1")

    def test_an_article_keeps_its_headings_as_its_outline_and_code_is_no_heading(self):
        self.assertEqual(kb_search.outline_of("Intro\n## Install\n```sh\n# not a heading\n```\n### Upgrade ##"),
                         "Install\nUpgrade")
        self.assertEqual(kb_search.outline_of("Plain text, no headings."), "")

    def test_a_content_without_a_hash_sign_has_no_outline_and_no_line_of_it_is_read(self):
        with mock.patch.object(kb_search, "markdown_headings", side_effect=AssertionError("a line was read")):
            self.assertEqual(kb_search.outline_of("Title\n=====\n\nPlain text.\n  Indented."), "")
        self.assertEqual(kb_search.outline_of("Title\n=====\n\nC# tips, #hashtag and  # one."), "")
        self.assertEqual(kb_search.outline_of("Text\n # Heading #"), "Heading")

    def test_the_code_like_tokens_are_read_only_where_the_weighing_counts_them(self):
        query = "Why does --fix skip HATCH_ENV_DIR?"
        self.assertEqual(kb_search.exact_tokens(query), [])
        with mock.patch.object(kb_search, "EXACT_SHARE", 1.0):
            self.assertEqual(kb_search.exact_tokens(query), ["--fix", "HATCH_ENV_DIR"])

    def test_only_a_knowledge_base_with_headings_is_weighed_by_them(self):
        headed = store_of(("Colour", "## Use\n\nA word."), ("Settings", "colour " * 5 + "and more"))
        plain = store_of(("Colour", "Nothing here but a word."), ("Settings", "colour " * 5 + "and more"))
        self.addCleanup(headed.close)
        self.addCleanup(plain.close)
        self.assertEqual([plan_of(store, ["colour"]).outlined for store in (headed, plain)], [True, False])
        self.assertEqual((plan_of(headed, ["colour"]).sampled, plan_of(headed, ["colour"]).counts), (2, {"colour": 2}))


def plan_of(store, words):
    with store.database.read() as connection:
        (number,) = connection.execute("SELECT number FROM knowledge_bases WHERE id = ?", (KB,)).fetchone()
        return kb_search.SearchPlan.read(connection, KB, number, words)


class LinksTest(unittest.TestCase):
    def setUp(self):
        self.store = store_of(("Install", "See [the guide](setting-up-the-header.md) and https://github.com/acme/tool "
                               "for the source."), ("GitHub", "Host the repository on GitHub."))
        self.addCleanup(self.store.close)

    def test_a_web_address_is_no_word_of_the_page(self):
        self.assertEqual(found(self.store, "github"), ["a-1"])
        self.assertEqual(found(self.store, "acme"), [])

    def test_a_link_target_is_no_word_of_the_page_but_its_text_is(self):
        self.assertEqual(found(self.store, "header"), [])
        self.assertEqual(found(self.store, "guide"), ["a-0"])

    def test_the_article_itself_keeps_its_links(self):
        read = self.store.call_tool("read_knowledge_article", {"knowledge_base_id": KB, "article_id": "a-0"})
        self.assertIn("https://github.com/acme/tool", read["content"])


class DescriptionTest(unittest.TestCase):
    def test_the_tool_says_in_one_sentence_how_a_question_is_matched(self):
        description = kb_store.SEARCH_KNOWLEDGE_BASE.description
        self.assertIn("Ask in plain words or in keywords alike: a question is matched by its subject", description)


@sqlite_only("a sqlite file of schema 4, made by hand")
@unittest.skipIf(sqlite3.sqlite_version_info < (3, 35), "making a file of schema 4 drops a column: sqlite 3.35")
class UpgradeTest(unittest.TestCase):
    def test_a_file_of_schema_4_gains_outlines_and_an_index_without_addresses(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "kb.db")
            store = kb_store.connect(path)
            store.create_knowledge_base(KB, "Docs")
            store.create_article(KB, "Install", "## Upgrading\n\nSee https://github.com/acme/tool.", article_id="a")
            store.close()
            as_schema_4(path)
            with kb_store.connect(path) as reopened:
                connection = reopened.database.connection
                self.assertEqual(connection.execute("PRAGMA user_version").fetchone()[0], kb_store.LAYOUT.version)
                self.assertEqual(connection.execute("SELECT outline FROM articles").fetchone()[0], "Upgrading")
                self.assertEqual(found(reopened, "github"), [])
                self.assertEqual(found(reopened, "upgrading"), ["a"])


def as_schema_4(path):
    """The file as schema 4 left it: no outline column or index, addresses in the search index."""
    connection = sqlite3.connect(path)
    connection.execute("DROP INDEX articles_outlined")
    connection.execute("ALTER TABLE articles DROP COLUMN outline")
    number, content = connection.execute("SELECT number, content FROM articles").fetchone()
    connection.execute("UPDATE search_index_1 SET content = ? WHERE rowid = ?", (content, number))
    connection.execute("PRAGMA user_version = 4")
    connection.commit()
    connection.close()
    with sqlite3.connect(path) as check:
        assert check.execute("SELECT count(*) FROM search_index_1 WHERE search_index_1 MATCH 'github'").fetchone()[0]


if __name__ == "__main__":
    unittest.main()
