"""What an agent reads after a search: the result names the section that answers and its snippet quotes it, and
read_knowledge_article returns that section alone, with the same citation, when asked for it by its anchor.

A long page whose answer stands under one heading far from its start is the case: before, the snippet quoted the
page's opening and a read returned the whole page. An anchor the article has no heading for is refused, naming the
article's sections and what to do, and changes nothing.
"""

import unittest

from tests.helpers import snapshot
from tests.postgres_helpers import default_location
from osfoundry_tools.stores import kb_sections, kb_store

KB = "kb-docs"
FILLER = "\n".join(f"## Topic {n}\n\nThe installer writes a lock file and a cache for topic {n}. " * 3
                   for n in range(40))
LONG_PAGE = ("# Everything\n\nThis guide covers the whole tool, from the first install to the last upgrade.\n\n"
             + FILLER + "\n\n## Behind a proxy\n\nSet HTTPS_PROXY to your company proxy's address; the proxy "
             "certificate goes in the trust store.\n\n### Proxy examples\n\nOne example.\n\n## After\n\nMore text.\n")


class SectionReadTest(unittest.TestCase):
    def setUp(self):
        self.store = kb_store.connect(default_location())
        self.store.create_knowledge_base(KB, "Docs")
        self.long_id = self.store.create_article(KB, "The guide", LONG_PAGE)["article_id"]
        self.store.create_article(KB, "Upgrading", "# Upgrading\n\nRun the upgrade command.\n")
        self.addCleanup(self.store.close)

    def search(self, query):
        return self.store.call_tool("search_knowledge_base", {"knowledge_base_id": KB, "query": query})["results"]

    def read(self, **extra):
        return self.store.call_tool("read_knowledge_article", dict(
            {"knowledge_base_id": KB, "article_id": self.long_id}, **extra))

    def test_a_result_names_its_answering_section_and_its_snippet_quotes_it(self):
        first = self.search("company proxy certificate")[0]
        self.assertEqual((first["article_id"], first["section"]), (self.long_id, "behind-a-proxy"))
        self.assertIn("proxy", first["snippet"].lower())
        self.assertNotIn("whole tool", first["snippet"])  # the opening is not what it quotes

    def test_the_snippet_is_no_longer_than_before(self):
        first = self.search("company proxy certificate")[0]
        self.assertLessEqual(len(first["snippet"].split()), 16 + 1)

    def test_reading_the_named_section_returns_that_part_alone_with_the_same_citation(self):
        section = self.search("company proxy certificate")[0]["section"]
        whole, part = self.read(), self.read(section=section)
        self.assertEqual(part["citation"], whole["citation"])
        self.assertEqual(part["section"], section)
        self.assertTrue(part["content"].startswith("## Behind a proxy\n"))
        self.assertIn("### Proxy examples", part["content"])  # a deeper heading belongs to the part
        self.assertNotIn("## After", part["content"])
        self.assertLess(len(part["content"]), len(whole["content"]) // 10)
        self.assertNotIn("section", whole)

    def test_an_unknown_section_is_refused_naming_the_sections_and_changes_nothing(self):
        before = snapshot(self.store)
        refused = self.read(section="no-such-heading")
        self.assertEqual(refused["error"], "not_found")
        self.assertIn('Its sections: "everything", "topic-0"', refused["message"])
        self.assertIn(' more.', refused["message"])  # a long page's sections are listed up to a bound
        self.assertIn("leave section out", refused["message"])
        self.assertEqual(snapshot(self.store), before)

    def test_a_page_without_headings_has_no_section_to_name_or_read(self):
        plain = self.store.create_article(KB, "Plain", "Proxy certificates go in the trust store.")["article_id"]
        for result in self.search("proxy certificates trust"):
            if result["article_id"] == plain:
                self.assertNotIn("section", result)
        refused = self.store.call_tool("read_knowledge_article", {"knowledge_base_id": KB, "article_id": plain,
                                                                  "section": "intro"})
        self.assertIn("It has no headings", refused["message"])

    def test_repeated_headings_are_named_apart_in_a_search_and_a_read(self):
        content = "# Install\n\nOne.\n\n# Usage\n\nTwo.\n\n# Install\n\nThe second install covers wheels.\n"
        article = self.store.create_article(KB, "Twice", content)["article_id"]
        found = next(r for r in self.search("second install wheels") if r["article_id"] == article)
        self.assertEqual(found["section"], "install-1")
        part = self.store.call_tool("read_knowledge_article", {"knowledge_base_id": KB, "article_id": article,
                                                               "section": "install-1"})
        self.assertEqual(part["content"], "# Install\n\nThe second install covers wheels.\n")

    def test_a_repeat_numbered_past_a_headings_own_number_is_named_and_read_apart(self):
        content = ("# Install\n\nOne.\n\n# Install 1\n\nThe first release.\n\n"
                   "# Install\n\nThe second install covers wheels.\n")
        article = self.store.create_article(KB, "Thrice", content)["article_id"]
        found = next(r for r in self.search("second install wheels") if r["article_id"] == article)
        self.assertEqual(found["section"], "install-2")
        reads = {name: self.store.call_tool("read_knowledge_article", {
            "knowledge_base_id": KB, "article_id": article, "section": name})["content"]
            for name in ("install", "install-1", "install-2")}
        self.assertEqual(reads, {"install": "# Install\n\nOne.\n\n",
                                 "install-1": "# Install 1\n\nThe first release.\n\n",
                                 "install-2": "# Install\n\nThe second install covers wheels.\n"})


class AnchorTest(unittest.TestCase):
    def test_the_parts_of_a_content_follow_its_headings_and_fenced_code_is_no_heading(self):
        content = "# A\n```\n# not a heading\n```\n## B [link](b.md)\nb\n"
        self.assertEqual([part.anchor for part in kb_sections.content_parts(content)], ["a", "b-link"])
        self.assertEqual(kb_sections.article_text(content).anchors, ("a", "b-link"))


if __name__ == "__main__":
    unittest.main()
