"""Sections at their largest: every anchor a search names fits read_knowledge_article's section argument and
reads back its section, the not_found answer naming an article's sections stays small, naming each anchor as an
agent passes it, and the work of splitting a page grows with its headings and link titles, never as their square.
Nothing a read or a refused read does changes the database (its search index included)."""

import json
import os
import random
import re
import sys
import time
import unittest

from tests import helpers
from tests.postgres_helpers import default_location
from osfoundry_tools.stores import kb_search, kb_sections, kb_store

KB = "kb-docs"
LONG = "Configure the proxy " + "really " * 60  # a heading of 440 characters: its anchor is cut
TWINS = "Proxy settings for " + "the office network " * 15  # two headings alike in their first 300 characters


def section_argument_limit():
    return kb_store.READ_KNOWLEDGE_ARTICLE.input_schema["properties"]["section"]["maxLength"]


class LongAnchorTest(unittest.TestCase):
    def setUp(self):
        self.store = kb_store.connect(default_location())
        self.addCleanup(self.store.close)
        self.store.create_knowledge_base(KB, "Docs")

    def article(self, content):
        return self.store.create_article(KB, "Networking", content)["article_id"]

    def read(self, article_id, section):
        return self.store.call_tool("read_knowledge_article", {"knowledge_base_id": KB, "article_id": article_id,
                                                               "section": section})

    def test_a_section_a_search_names_under_a_long_heading_reads_back(self):
        article_id = self.article(f"# {LONG}\nSet the proxy variable.\n# Other\nzebra crossing\n")
        result = self.store.call_tool("search_knowledge_base", {"knowledge_base_id": KB,
                                                                "query": "proxy variable"})["results"][0]
        self.assertLessEqual(len(result["section"]), section_argument_limit())
        part = self.read(article_id, result["section"])
        self.assertNotIn("error", part, part.get("message"))
        self.assertEqual(part["content"], f"# {LONG}\nSet the proxy variable.\n")

    def test_headings_alike_past_the_cut_keep_anchors_of_their_own_that_read_their_own_sections(self):
        content = "".join(f"## {TWINS}{n}\nOffice network number {n}.\n" for n in ("one", "two", "three"))
        article_id = self.article(content)
        parts = kb_sections.content_parts(content)
        anchors = [part.anchor for part in parts]
        self.assertEqual(len(set(anchors)), 3)
        for anchor, n in zip(anchors, ("one", "two", "three")):
            with self.subTest(section=n):
                self.assertLessEqual(len(anchor), section_argument_limit())
                self.assertEqual(self.read(article_id, anchor)["content"],
                                 f"## {TWINS}{n}\nOffice network number {n}.\n")

    def test_an_unknown_section_of_an_article_of_long_headings_is_a_small_answer_naming_usable_anchors(self):
        content = "".join(f"# {'漢' * 4000} {n}\ntext\n" for n in range(24))
        article_id = self.article(content)
        before = helpers.dump(self.store)
        refused = self.read(article_id, "nope")
        self.assertEqual(refused["error"], "not_found")
        self.assertLess(len(json.dumps(refused).encode("utf-8")), 32 * 1024)
        first = kb_sections.content_parts(content)[0].anchor
        self.assertIn(json.dumps(first, ensure_ascii=False), refused["message"])  # as the agent passes it back
        self.assertEqual(self.read(article_id, first)["content"], f"# {'漢' * 4000} 0\ntext\n")
        self.assertEqual(helpers.dump(self.store), before)


STORES = os.path.dirname(kb_sections.__file__)


def lines_run(call):
    """How many lines of the stores' code `call()` runs: a measure of its work that no machine's speed changes."""
    count = 0

    def tracer(frame, event, argument):
        nonlocal count
        if not frame.f_code.co_filename.startswith(STORES):
            return None
        count += 1
        return tracer
    sys.settrace(tracer)
    try:
        call()
    finally:
        sys.settrace(None)
    return count


class SplitWorkTest(unittest.TestCase):
    """A page of n headings, or of n links whose titles run over two lines, costs a section read and a search's
    split about twice as much at 2n as at n (as its square would, four times)."""

    PAGES = {
        "headings one below the other": lambda n: "# Top\n" + "## Part\nText.\n" * n,
        "headings of one level": lambda n: "# Part\n" * n,
        "link titles over two lines": lambda n: "# Proxy\n" + '[x](y "a\nb")\n' * n + "# End\n",
    }

    def setUp(self):
        self.store = kb_store.connect(default_location())
        self.addCleanup(self.store.close)
        self.store.create_knowledge_base(KB, "Docs")

    def work(self, page):
        article_id = self.store.create_article(KB, "Page", page)["article_id"]
        arguments = {"knowledge_base_id": KB, "article_id": article_id, "section": "nope"}
        return lines_run(lambda: self.store.call_tool("read_knowledge_article", arguments)) + \
            lines_run(lambda: kb_sections.article_text(page))

    def test_splitting_a_page_grows_with_it_not_with_its_square(self):
        for what, page in self.PAGES.items():
            with self.subTest(page=what):
                small, large = self.work(page(300)), self.work(page(600))
                self.assertLess(large / small, 2.5, (small, large))

    def test_the_parts_of_a_page_are_its_headings_to_the_next_of_the_same_or_a_higher_level(self):
        content = "".join(f"{'#' * level} H{number}\n" + ('[x](y "a\nb")\n' if number % 3 else "text\n")
                          for number, level in enumerate([1, 2, 3, 3, 2, 6, 4, 1, 2, 5, 5, 1, 3, 2, 1]))
        starts = kb_sections.line_starts(content)
        marks = list(kb_sections.markdown_headings(kb_sections.indexed_text(content).split("\n")))
        expected = []
        for index, (line, level, _) in enumerate(marks):
            end = next((other for other, other_level, _ in marks[index + 1:] if other_level <= level), len(starts) - 1)
            expected.append((starts[line], min(starts[end], len(content))))
        self.assertEqual([(part.start, part.end) for part in kb_sections.content_parts(content)], expected)
        self.assertEqual([content[part.start:part.end].split("\n")[0] for part in kb_sections.content_parts(content)],
                         [f"{'#' * level} H{number}" for number, level in
                          enumerate([1, 2, 3, 3, 2, 6, 4, 1, 2, 5, 5, 1, 3, 2, 1])])
        written = [0] + [index + 1 for index, character in enumerate(content) if character == "\n"] + [len(content) + 1]
        inside = [(match.start(), match.end()) for match in kb_sections._LINK_TARGET.finditer(content)]
        self.assertEqual(starts, [start for start in written if not any(a < start <= b for a, b in inside)])


HEADING = re.compile(r" {0,3}(#{1,6})[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*")  # CommonMark's ATX heading, as first written
ADDRESS = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s()<>\[\]{}\"'`]+")  # a web address, as first written
LINK_TARGET = re.compile(r"\]\([^()\s]*(?:\s+\"[^\"]*\")?\)")  # a Markdown link's target, as first written


class OnePassTest(unittest.TestCase):
    """A heading line, and the web addresses left out of the text a search indexes, are read as the regular
    expressions above read them, in one pass. Those expressions cost the square of a run's length: a heading of
    spaces and tabs between its words (its text is matched lazily, and each place it stops tries the closing #s
    over the whole run again), and a run of letters before a '://' (each letter of it starts a scheme that runs to
    its end); every save reads every line, in its write transaction, and holds every other writer back meanwhile."""

    def test_each_line_is_read_as_the_expression_reads_it(self):
        chooser = random.Random(7)
        lines = ["# Install", "## Install ##", "#  ", "# ", "#", "#######  x", "    # x", "   # x", "# #", "# ## #",
                 "# C#", "# a #b", "#\tx\t#\t", "# x \u3000#", "#x", "# \u00a0", "## a ## b ##", "# ##"]
        lines += ["".join(chooser.choice(" \t#xa\u3000") for _ in range(chooser.randrange(1, 12)))
                  for _ in range(20_000)]
        for line in lines:
            expected = HEADING.fullmatch(line)
            read = list(kb_sections.markdown_headings([line]))
            with self.subTest(line=line):
                self.assertEqual(read, [] if expected is None else
                                 [(0, len(expected.group(1)), expected.group(2).strip())])

    def test_a_long_run_of_spaces_and_tabs_costs_one_pass(self):
        line = "# Proxy" + " \t" * 10_000 + "settings"  # the expression: seconds; one pass: milliseconds
        content = "Intro.\n" + line + "\nText.\n"
        started = time.process_time()  # the time of this process alone: other work on the machine does not count
        self.assertEqual(kb_search.outline_of(content), ("Proxy" + " \t" * 10_000 + "settings")[
            :kb_search.OUTLINE_CHARACTERS])
        self.assertEqual(len(kb_sections.content_parts(content)), 1)
        self.assertLess(time.process_time() - started, 0.5)


    def test_addresses_are_left_out_as_the_expression_leaves_them_out(self):
        chooser = random.Random(11)
        texts = ["See https://example.com/a.", "1abc://host x", "12ab://x and .http://y", "ab:cd://x", "(http://a)",
                 "x-https://a b", "a://bc.d-e://f g", "https://a https://b", "no address", "+a://b"]
        texts += ["".join(chooser.choice(["a", "1", ".", "-", "+", ":", "/", "://", " ", "(", "Z"])
                          for _ in range(chooser.randrange(1, 16))) for _ in range(20_000)]
        for text in texts:
            with self.subTest(text=text):
                self.assertEqual(kb_sections.without_addresses(text), ADDRESS.sub(" ", text))

    def test_link_targets_are_left_out_as_the_expression_leaves_them_out(self):
        chooser = random.Random(13)
        texts = ["[a](b.md)", "[a] (b)", "a]b(c)", "](x \"t\")", "no link", "]("]
        pieces = ["]", "(", ")", "](", "x", " ", '"', "\n"]
        texts += ["".join(chooser.choice(pieces) for _ in range(chooser.randrange(12))) for _ in range(20_000)]
        for text in texts:
            with self.subTest(text=text):
                self.assertEqual(kb_sections.without_link_targets(text), LINK_TARGET.sub("]", text))

    def test_a_long_run_of_letters_before_an_address_costs_one_pass(self):
        content = "a" * 49_000 + " x://y and 1" + "b" * 49_000 + "://z"  # the expression: seconds
        started = time.process_time()
        self.assertEqual(kb_sections.indexed_text(content), "a" * 49_000 + "   and 1 ")
        self.assertLess(time.process_time() - started, 0.5)


if __name__ == "__main__":
    unittest.main()
