"""content_files.py and the server's --kb-from-dir / --channel-from: one's own Markdown, CSV and JSON Lines served.

Each test writes its files into a temporary folder; the examples/ folder is loaded as a newcomer would serve it.
A bad input must cost one line naming the file and change nothing in any store or database file.
"""

import contextlib
import csv
import hashlib
import io
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import unicodedata
import unittest

from osfoundry_tools.content import demo, own_content
from osfoundry_tools.core import rejections
from osfoundry_tools.server.options import parse_options
from osfoundry_tools.server.workspace import instructions_for, open_workspace
from osfoundry_tools.stores import kb_store, record_store
from tests.helpers import ROOT, assert_server_refuses, server_options_refused, snapshot
from tests.test_mcp_server import SERVER, WAIT, ServerProcess, rejection
from tests.test_special_files import listing, server_refusal

EXAMPLES = os.path.join(ROOT, "examples")
HELP_CENTER = os.path.join(EXAMPLES, "help-center")
REQUESTS = (os.path.join(EXAMPLES, "feature-requests.csv"), os.path.join(EXAMPLES, "feature-requests.fields.json"))
STATUS = {"key": "status", "label": "Status", "type": "select", "is_required": True, "options": [
    {"value": "new", "label": "New"}, {"value": "planned", "label": "Planned"}]}
TITLE = {"key": "title", "label": "Title", "type": "text", "is_required": True}
DEEP = 1100  # folders one in another: deeper than a walk by recursion goes under Python's default limit (1,000)
EVERY_TYPE = [  # one writable field of each type a CSV cell converts, and a formula
    TITLE, STATUS,
    {"key": "votes", "type": "number", "min": 0, "max": 100},
    {"key": "price", "type": "currency"},
    {"key": "share", "type": "percentage"},
    {"key": "stars", "type": "rating"},
    {"key": "paying", "type": "boolean"},
    {"key": "due", "type": "date"},
    {"key": "email", "type": "email"},
    {"key": "phone", "type": "phone"},
    {"key": "site", "type": "url"},
    {"key": "areas", "type": "multi_select", "options": [{"value": "web", "label": "Web"},
                                                         {"value": "mobile", "label": "Mobile"}]},
    {"key": "related", "type": "relation", "related_channel_id": "requests"},
    {"key": "files", "type": "file"},
    {"key": "extra", "type": "json"},
    {"key": "age", "type": "formula", "expression": "days_since(created_at)"},
]



def load(kb, records, folders=(), channels=()):
    """Read and check the sources, then write them into these stores: the sources they held already come back."""
    return own_content.write_content(own_content.read_content(folders, channels), kb, records)

class Folder:
    """A temporary folder to write content files into."""

    def __init__(self, test):
        temporary = tempfile.TemporaryDirectory()
        test.addCleanup(temporary.cleanup)
        self.root = temporary.name

    def path(self, *parts):
        return os.path.join(self.root, *parts)

    def write(self, relative, text, encoding="utf-8"):
        """Write a file (its folders made as needed); returns its path."""
        path = self.path(*relative.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as file:
            file.write(text if isinstance(text, bytes) else text.encode(encoding))
        return path

    def channel(self, name, rows, fields=(TITLE, STATUS)):
        """A rows file `name` and its field file; returns (rows path, field file path)."""
        return self.write(name, rows), self.write(name + ".fields.json", json.dumps(list(fields)))


def nested(test, top, depth):
    """Make `depth` folders "d", one in another, under `top`, one by one (os.makedirs and shutil.rmtree recurse, and
    would fail past Python's recursion limit), removed the same way when the test ends; returns the deepest."""
    made = [top]
    for _ in range(depth):
        made.append(os.path.join(made[-1], "d"))
        os.mkdir(made[-1])

    def remove():
        for folder in reversed(made[1:]):
            for name in os.listdir(folder):
                if name != "d":
                    os.remove(os.path.join(folder, name))
            os.rmdir(folder)
    test.addCleanup(remove)
    return made[-1]


def articles_of(folder):
    """The articles a folder makes, by ID."""
    return {a.article_id: a for a in own_content.read_knowledge_base(folder).articles}


def values_of(rows_path, fields_path):
    """The values of each row a rows file makes."""
    return [row.values for row in own_content.read_channel(rows_path, fields_path).rows]


class MarkdownArticlesTest(unittest.TestCase):
    """A folder of Markdown files as a knowledge base: titles, contents, drafts and IDs."""

    def setUp(self):
        self.files = Folder(self)

    def test_the_title_is_the_first_heading_and_the_content_the_rest_of_the_file_stripped(self):
        self.files.write("kb/reset.md", "\n# Reset a password #\n\nOpen Settings.\n\n## Steps\nChoose Reset.\n\n")
        (article,) = articles_of(self.files.path("kb")).values()
        self.assertEqual(article.title, "Reset a password")
        self.assertEqual(article.content, "Open Settings.\n\n## Steps\nChoose Reset.")
        self.assertTrue(article.published)

    def test_a_file_without_a_heading_takes_its_title_from_its_file_name(self):
        self.files.write("kb/two-factor-setup.md", "Scan the QR code.\n## Lost phone\nUse a recovery code.")
        self.files.write("kb/API_keys.md", "#not-a-heading without a space\n")
        articles = articles_of(self.files.path("kb"))
        self.assertEqual(articles["two-factor-setup"].title, "Two factor setup")
        self.assertEqual(articles["api_keys"].title, "API keys")
        self.assertEqual(articles["api_keys"].content, "#not-a-heading without a space")

    def test_a_heading_inside_a_fenced_code_block_is_not_the_title(self):
        self.files.write("kb/shell.md", "```sh\n# a comment\n```\n# Use the shell\nRun it.")
        (article,) = articles_of(self.files.path("kb")).values()
        self.assertEqual(article.title, "Use the shell")
        self.assertEqual(article.content, "```sh\n# a comment\n```\nRun it.")

    def test_front_matter_is_skipped_and_draft_true_or_published_false_makes_a_draft(self):
        cases = {"plain": ("", True), "other-keys": ("owner: mika\ntags: [a, b]\n", True),
                 "draft": ("draft: true\n", False), "quoted": ('draft: "yes"  # until May\n', False),
                 "tab": ("draft: true\t# until May\n", False),
                 "unpublished": ("published: false\n", False), "not-draft": ("draft: false\n", True)}
        for name, (matter, _) in cases.items():
            self.files.write(f"kb/{name}.md", f"---\n{matter}---\n# {name}\nText of {name}.\n")
        articles = articles_of(self.files.path("kb"))
        for name, (_, published) in cases.items():
            with self.subTest(name=name):
                self.assertEqual(articles[name].published, published)
                self.assertEqual((articles[name].title, articles[name].content), (name, f"Text of {name}."))

    def test_a_front_matter_title_names_the_article_as_yaml_reads_it(self):
        cases = {"plain": ("title: Reset a password  # shown in the menu", "Reset a password"),
                 "double": ('title: "Reset: \\"all\\" \\u00e9"  # quoted', 'Reset: "all" \u00e9'),
                 "single": ("title: 'It''s # not a comment'", "It's # not a comment"),
                 "folded": ("title: >-\n  Reset a\n  password\ndraft: false", "Reset a password"),
                 "hash": ("title: C# and F#", "C# and F#")}
        for name, (matter, _) in cases.items():
            self.files.write(f"kb/{name}.md", f"---\n{matter}\n---\nText of {name}.\n")
        articles = articles_of(self.files.path("kb"))
        for name, (_, title) in cases.items():
            with self.subTest(name=name):
                self.assertEqual((articles[name].title, articles[name].content), (title, f"Text of {name}."))

    def test_a_front_matter_title_wins_and_a_first_heading_of_other_words_stays_in_the_text(self):
        self.files.write("kb/same.md", "---\ntitle: Reset a password\n---\n# reset  a PASSWORD\n\nOpen Settings.")
        self.files.write("kb/other.md", "---\ntitle: Reset a password\n---\n\n# Before you start\n\nSign in.\n")
        self.files.write("kb/empty.md", "---\ntitle:\n---\n# The heading\nText.")
        self.files.write("kb/null-title.md", "---\ntitle: ~\n---\nText.")
        self.files.write("kb/comment.md", "---\ntitle: # set by the menu\n---\n# The heading\nText.")
        articles = articles_of(self.files.path("kb"))
        self.assertEqual((articles["same"].title, articles["same"].content), ("Reset a password", "Open Settings."))
        self.assertEqual((articles["other"].title, articles["other"].content),
                         ("Reset a password", "# Before you start\n\nSign in."))
        self.assertEqual(articles["empty"].title, "The heading")  # an empty title is none: the heading names it
        self.assertEqual(articles["null-title"].title, "Null title")  # and without a heading, the file's name
        self.assertEqual(articles["comment"].title, "The heading")  # a comment alone is no title
        with kb_store.connect() as kb, record_store.connect() as records:
            load(kb, records, [self.files.path("kb")])
            read = kb.call_tool("read_knowledge_article", {"knowledge_base_id": "kb", "article_id": "other"})
            self.assertEqual((read["title"], read["content"]), ("Reset a password", "# Before you start\n\nSign in."))

    def test_ids_are_slugs_of_the_folder_name_and_of_each_path_without_md(self):
        folder = self.files.path("Help Center")
        self.files.write("Help Center/Billing/Refunds & VAT.md", "# Refunds\nFourteen days.")
        self.files.write("Help Center/getting_started.md", "# Start\nSign up.")
        base = own_content.read_knowledge_base(folder + os.sep)
        self.assertEqual((base.knowledge_base_id, base.name), ("help-center", "Help Center"))
        self.assertEqual([a.article_id for a in base.articles], ["billing-refunds---vat", "getting_started"])

    def test_names_in_other_scripts_make_ids_of_their_letters_served_and_cited_through_the_tools(self):
        folder = self.files.path("ヘルプ")
        self.files.write("ヘルプ/請求と返金.md", "# 返金\n十四日以内に返金します。")
        self.files.write("ヘルプ/हिन्दी पन्ना.md", "# पन्ना\nपाठ।")
        self.files.write("ヘルプ/What\u2019s new.md", "# New\nText.")
        self.files.write("ヘルプ/Stra\u00dfe.md", "# Street\nText.")
        base = own_content.read_knowledge_base(folder)
        self.assertEqual(base.knowledge_base_id, "ヘルプ")
        ids = [a.article_id for a in base.articles]
        self.assertEqual(sorted(ids), sorted(["請求と返金", "हिन्दी-पन्ना", "whats-new", "straße"]))
        with kb_store.connect() as kb, record_store.connect() as records:
            load(kb, records, [folder])
            read = kb.call_tool("read_knowledge_article", {"knowledge_base_id": "ヘルプ", "article_id": "請求と返金"})
            self.assertEqual((read["article_id"], read["title"]), ("請求と返金", "返金"))
            self.assertEqual(kb.call_tool("read_knowledge_article", {
                "knowledge_base_id": "ヘルプ", "article_id": "हिन्दी-पन्ना"})["title"], "पन्ना")

    def test_names_in_latin_letters_make_the_ids_they_made_before_other_scripts_were_kept(self):
        cases = {"Help Center": "help-center", "Über-Ärger": "uber-arger", "What\u2019s new": "whats-new",
                 "caf\u0065\u0301": "cafe", "\uff21\uff22\uff23\uff11": "abc1", "\u0130stanbul": "istanbul",
                 "\u20ac price": "-price", "a\u0301\u0323b": "ab"}
        for name, made in cases.items():
            with self.subTest(name=name):
                self.assertEqual(own_content.slug(name), made)

    def test_articles_come_sorted_by_path_subfolders_included_and_hidden_files_left_out(self):
        for relative in ("kb/b.md", "kb/a/z.md", "kb/a.md", "kb/.hidden.md", "kb/.git/x.md", "kb/notes.txt"):
            self.files.write(relative, "# T\nText.")
        self.assertEqual(list(articles_of(self.files.path("kb"))), ["a", "a-z", "b"])

    def test_loading_the_same_folder_again_gives_every_article_the_same_id_and_title(self):
        def served():
            with kb_store.connect() as kb, record_store.connect() as records:
                load(kb, records, [HELP_CENTER])
                return {a.article_id: kb.article("help-center", a.article_id)["title"]
                        for a in own_content.read_knowledge_base(HELP_CENTER).articles}
        self.assertEqual(served(), served())
        self.assertIn("billing-refunds", served())

    def test_front_matter_may_hold_lists_comments_and_indented_lines_whose_keys_are_not_its_own(self):
        self.files.write("kb/hugo.md", "---\n# from Hugo\ntitle: \"Hugo\"\ntags:\n  - a\n- b\ndescription: >\n"
                                       "  long\n\ndraft: yes\n---\n# Hugo\nBody.")
        self.files.write("kb/nested.md", "---\ncascade:\n  draft: true\n---\nBody.")
        articles = articles_of(self.files.path("kb"))
        self.assertEqual((articles["hugo"].title, articles["hugo"].content, articles["hugo"].published),
                         ("Hugo", "Body.", False))
        self.assertTrue(articles["nested"].published)  # a key under another is not the article's own

    def test_the_contents_first_line_keeps_its_indentation_so_an_indented_code_block_stays_code(self):
        self.files.write("kb/install.md", "# Install\n\n\n    $ pip install quill\n\nThen sign in.\n\n")
        (article,) = articles_of(self.files.path("kb")).values()
        self.assertEqual(article.content, "    $ pip install quill\n\nThen sign in.")

    def test_lone_cr_and_crlf_line_ends_are_read_as_line_ends_and_a_utf8_byte_order_mark_dropped(self):
        self.files.write("kb/mac.md", "# Mac\r\rText.\r## Steps\rOne.\r")
        self.files.write("kb/windows.md", "\ufeff---\r\ndraft: true\r\n---\r\n# Windows\r\n\r\nText.\r\n")
        articles = articles_of(self.files.path("kb"))
        self.assertEqual((articles["mac"].title, articles["mac"].content), ("Mac", "Text.\n## Steps\nOne."))
        self.assertEqual((articles["windows"].title, articles["windows"].content, articles["windows"].published),
                         ("Windows", "Text.", False))

    def test_every_section_a_search_names_is_one_a_read_accepts_whatever_the_headings(self):
        headings = ["# Title", "## Install", "## Install", "## Install 1", "Setext\n======", "<h2>HTML</h2>",
                    "```\n## In code\n```", "    ## Indented code", "## !!!", "## Café", "## Cafe\u0301",
                    "## Trailing ##", "##\tTab", "## [Link](https://example.com/x) text", "## 日本語"]
        self.files.write("kb/all.md", "# All\n" + "\n\n".join(f"{h}\nAbout install, café and links."
                                                             for h in headings) + "\r\nEnd.")
        with kb_store.connect() as kb, record_store.connect() as records:
            load(kb, records, [self.files.path("kb")])
            named = set()
            for query in ("install", "café", "links", "title", "text", "trailing", "tab", "日本語"):
                found = kb.call_tool("search_knowledge_base", {"knowledge_base_id": "kb", "query": query})
                named.update(result["section"] for result in found["results"] if "section" in result)
            self.assertGreater(len(named), 1)
            for section in named:
                with self.subTest(section=section):
                    read = kb.call_tool("read_knowledge_article", {"knowledge_base_id": "kb", "article_id": "all",
                                                                   "section": section})
                    self.assertNotIn("error", read)
                    self.assertTrue(read["content"].startswith("#"), read["content"])


class RowsTest(unittest.TestCase):
    """CSV cells converted by their field's type; JSON Lines taken as they are."""

    def setUp(self):
        self.files = Folder(self)

    def test_each_csv_cell_is_converted_by_its_fields_type(self):
        rows, fields = self.files.channel("requests.csv", (
            "title,status,votes,price,share,stars,paying,due,email,phone,site,areas,related,files,extra\n"
            'Dark mode,new,12,9.5,45%,4,Yes,2026-03-02,a@b.example,+81 3 1234 5678,https://x.example,web; mobile,'
            '[],"[{""name"": ""a.png"", ""url"": ""https://x.example/a.png""}]","{""k"": [1, 2]}"\n'
            'Offline, planned ,-0,1e2,0,5,0,,,,,"[""web""]","[""itm-00001""]",,"""plain"""\n'), EVERY_TYPE)
        self.assertEqual(values_of(rows, fields), [
            {"title": "Dark mode", "status": "new", "votes": 12, "price": 9.5, "share": 45, "stars": 4,
             "paying": True, "due": "2026-03-02", "email": "a@b.example", "phone": "+81 3 1234 5678",
             "site": "https://x.example", "areas": ["web", "mobile"], "related": [],
             "files": [{"name": "a.png", "url": "https://x.example/a.png"}], "extra": {"k": [1, 2]}},
            {"title": "Offline", "status": "planned", "votes": 0, "price": 100.0, "share": 0, "stars": 5,
             "paying": False, "areas": ["web"], "related": ["itm-00001"], "extra": "plain"}])
        with kb_store.connect() as kb, record_store.connect() as records:
            load(kb, records, channels=[(rows, fields)])
            self.assertEqual(records.item("requests", "itm-00002")["values"]["related"], ["itm-00001"])

    def test_checkbox_cells_take_true_false_yes_no_1_0_in_any_case(self):
        rows, fields = self.files.channel("c.csv", "title,status,paying\n" + "".join(
            f"T,new,{word}\n" for word in ("true", "FALSE", "Yes", "no", "1", "0")),
            [TITLE, STATUS, {"key": "paying", "type": "boolean"}])
        self.assertEqual([v["paying"] for v in values_of(rows, fields)], [True, False, True, False, True, False])

    def test_an_empty_cell_leaves_the_field_unset_and_a_row_of_empty_cells_is_skipped(self):
        rows, fields = self.files.channel("c.csv", "title,status,votes\r\nA,new,\r\n,,\r\n\r\nB,new,  \r\n",
                                          [TITLE, STATUS, {"key": "votes", "type": "number"}])
        self.assertEqual(values_of(rows, fields), [{"title": "A", "status": "new"}, {"title": "B", "status": "new"}])

    def test_json_lines_rows_are_taken_as_they_are_with_their_line_numbers(self):
        rows, fields = self.files.channel("bugs.jsonl", '{"title": "A", "status": "new"}\n\n'
                                          '{"title": "B", "status": "planned", "votes": 3.5}\n',
                                          [TITLE, STATUS, {"key": "votes", "type": "number"}])
        channel = own_content.read_channel(rows, fields)
        self.assertEqual([(r.line, r.values) for r in channel.rows], [
            (1, {"title": "A", "status": "new"}), (3, {"title": "B", "status": "planned", "votes": 3.5})])
        self.assertEqual((channel.channel_id, channel.name), ("bugs", "Bugs"))

    def test_json_lines_may_end_their_lines_with_cr_as_csv_and_markdown_files_may(self):
        rows, fields = self.files.channel("r.jsonl", '{"title": "A", "status": "new"}\r\r{"title": "B", '
                                                     '"status": "new"}\r\n{"title": "C", "status": "new"}')
        channel = own_content.read_channel(rows, fields)
        self.assertEqual([(row.line, row.values["title"]) for row in channel.rows], [(1, "A"), (3, "B"), (4, "C")])

    def test_a_field_file_may_be_an_object_naming_the_channel(self):
        rows = self.files.write("My Requests.csv", "title,status\nA,new\n")
        fields = self.files.write("f.json", json.dumps({"name": "Customer requests", "fields": [TITLE, STATUS]}))
        channel = own_content.read_channel(rows, fields)
        self.assertEqual((channel.channel_id, channel.name), ("my-requests", "Customer requests"))


class ExamplesTest(unittest.TestCase):
    """examples/ loads as it is, and a search finds the article a person would want."""

    @classmethod
    def setUpClass(cls):
        cls.kb, cls.records = kb_store.connect(), record_store.connect()
        cls.content = own_content.read_content([HELP_CENTER], [REQUESTS])
        own_content.write_content(cls.content, cls.kb, cls.records)

    @classmethod
    def tearDownClass(cls):
        cls.kb.close()
        cls.records.close()

    def search(self, query):
        answer = self.kb.call_tool("search_knowledge_base", {"knowledge_base_id": "help-center", "query": query})
        return [result["article_id"] for result in answer["results"]]

    def test_the_help_center_holds_eight_articles_of_which_offline_mode_is_the_draft(self):
        (base,) = self.content.knowledge_bases
        self.assertEqual(len(base.articles), 8)
        self.assertEqual([a.article_id for a in base.articles if not a.published], ["offline-mode"])
        self.assertEqual(self.kb.article("help-center", "offline-mode")["status"], "draft")
        self.assertEqual(self.kb.article("help-center", "two-factor-setup")["title"], "Two factor setup")

    def test_searches_find_the_right_article_first_and_never_the_draft(self):
        for query, article_id in (("refund a charge", "billing-refunds"), ("forgot my password", "reset-your-password"),
                                  ("lost phone recovery code", "two-factor-setup"),
                                  ("downgrade plan", "billing-change-plan"), ("export notebook zip", "export-notes"),
                                  ("guest access share", "share-a-notebook")):
            with self.subTest(query=query):
                self.assertEqual(self.search(query)[0], article_id)
        self.assertNotIn("offline-mode", self.search("offline notebooks sync"))

    def test_the_feature_requests_hold_fifteen_items_and_fields_of_several_types(self):
        self.assertEqual(len(self.records.item_ids("feature-requests")), 15)
        types = {f["type"] for f in self.records.schema("feature-requests")["fields"]}
        self.assertLessEqual({"text", "select", "number", "date", "email", "multi_select", "boolean"}, types)
        first = self.records.item("feature-requests", "itm-00002")["values"]
        self.assertEqual((first["areas"], first["paying_customer"], first["votes"]), (["editor", "mobile"], True, 347))


class BadInputTest(unittest.TestCase):
    """Every bad input: one ContentError line naming the file (and the line), and nothing written anywhere."""

    def setUp(self):
        self.files = Folder(self)
        self.kb, self.records = kb_store.connect(), record_store.connect()
        self.addCleanup(self.kb.close)
        self.addCleanup(self.records.close)
        self.kb.create_knowledge_base("kb-other", "Other")  # something to leave alone
        self.before = (snapshot(self.kb), snapshot(self.records))

    def refused(self, pattern, folders=(), channels=()):
        """Load the sources; assert one ContentError line matching `pattern` and both stores unchanged."""
        with self.assertRaises(own_content.ContentError) as caught:
            load(self.kb, self.records, folders, channels)
        message = str(caught.exception)
        self.assertEqual(message.splitlines(), [message])
        self.assertRegex(message, pattern)
        self.assertIsInstance(caught.exception, ValueError)
        self.assertEqual((snapshot(self.kb), snapshot(self.records)), self.before)
        return message

    def test_a_missing_folder_is_named_and_nothing_is_written(self):
        folder = self.files.path("nowhere")
        self.refused(f"^{re.escape(folder)}: no such folder; give a folder of Markdown", [folder])

    def test_an_empty_folder_and_a_folder_without_a_markdown_file(self):
        os.makedirs(self.files.path("empty"))
        self.refused(r"empty: is empty; put one \.md file per article in it", [self.files.path("empty")])
        self.files.write("text/notes.txt", "hello")
        self.refused(r"text: holds no Markdown \(\.md\) file, only 1 other file such as notes\.txt",
                     [self.files.path("text")])

    def test_a_file_that_is_not_utf8_names_its_line(self):
        self.files.write("kb/good.md", "# Good\nFine.")
        self.files.write("kb/latin.md", "# Caf\xe9\n\nna\xefve\n", encoding="latin-1")
        self.refused(r"kb/latin\.md:1: is not UTF-8 text \(byte 0xe9\); save the file as UTF-8",
                     [self.files.path("kb")])
        rows, fields = self.files.channel("r.csv", "title,status\nA,new\nB\xe9,new\n".encode("latin-1"))
        self.refused(r"r\.csv:3: is not UTF-8 text", channels=[(rows, fields)])

    def test_a_title_or_content_past_the_stores_limits_is_refused_naming_the_limit(self):
        self.files.write("long/title.md", "# " + "t" * (kb_store.TITLE_MAX_CHARACTERS + 1) + "\nText.")
        self.refused(r"title\.md: the title has 201 characters, more than the 200", [self.files.path("long")])
        self.files.write("big/content.md", "# Big\n" + "x" * (kb_store.CONTENT_MAX_CHARACTERS + 1))
        self.refused(r"content\.md: holds 100,001 characters of text, more than the 100,000",
                     [self.files.path("big")])

    def test_an_unclosed_front_matter_or_a_flag_that_is_not_true_or_false_names_its_line(self):
        self.files.write("open/a.md", "---\ndraft: true\n# A\nText.")
        self.refused(r"a\.md:1: the front matter opened by --- is never closed", [self.files.path("open")])
        self.files.write("flag/a.md", "---\ntitle: A\ndraft: maybe\n---\nText.")
        self.refused(r'a\.md:3: draft must be true or false, got "maybe"', [self.files.path("flag")])

    def test_a_front_matter_title_that_cannot_be_read_or_is_too_long_names_its_line_and_writes_nothing(self):
        cases = {"double": ('title: "Reset a password', r'a\.md:3: the front matter\'s title "\\"Reset a password" '
                                                        r'cannot be read as one quoted text; close its quotes'),
                 "after": ('title: "Reset" a password', r"a\.md:3: the front matter's title .* cannot be read"),
                 "single": ("title: 'Reset a password", r"a\.md:3: the front matter's title .* opens a quote it "
                                                        r"never closes; close it"),
                 "long": ("title: " + "t" * (kb_store.TITLE_MAX_CHARACTERS + 1),
                          r"a\.md: the title has 201 characters, more than the 200 a title may hold; shorten the "
                          r"front matter's title"),
                 "nul": ('title: "A\\u0000B"', r"a\.md: an article's title must not hold a NUL character")}
        for name, (matter, pattern) in cases.items():
            with self.subTest(name=name):
                self.files.write(f"{name}/a.md", f"---\ndraft: false\n{matter}\n---\n# Reset\nText.")
                self.refused(pattern, [self.files.path(name)])

    def test_two_files_of_one_article_id_are_both_named(self):
        self.files.write("kb/Reset password.md", "# A\nText.")
        self.files.write("kb/reset-password.md", "# B\nText.")
        self.refused(r'kb/reset-password\.md: article ID "reset-password" is taken by \S+/kb/Reset password\.md',
                     [self.files.path("kb")])

    def test_two_names_that_differ_only_in_how_an_accent_is_encoded_are_told_apart(self):
        self.files.write("kb/caf\u00e9.md", "# A\nText.")
        self.files.write("kb/cafe\u0301.md", "# B\nText.")
        self.refused(r'kb/caf.+\.md: article ID "cafe" is taken by \S+/kb/caf.+\.md, a name that differs from this '
                     r"one only in how its accents are encoded \(Unicode normalisation\); rename one of the two files$",
                     [self.files.path("kb")])

    def test_a_name_that_makes_no_id_or_too_long_an_id_is_refused_naming_what_to_rename(self):
        long = "x" * (own_content.checks.ID_CHARACTERS + 1)
        cases = {"empty/\u2605\u2606.md": r"empty/\u2605\u2606\.md: its name holds no letter or digit to make an "
                                              r"ID of; rename the file$",
                 "dashes/--.md": r"dashes/--\.md: its name holds no letter or digit",
                 f"long/{long}.md": r"long/x+\.md: the ID its name makes has 129 characters, more than the 128 an ID "
                                    r"may hold; rename the file$",
                 "deep/" + "/".join(["part"] * 26) + "/a.md": r"deep/part/.+/a\.md: the ID its name makes has 131 "
                                                              r".*; rename the file \(or shorten the names of its "
                                                              r"folders\)$"}
        for relative, pattern in cases.items():
            with self.subTest(relative=relative[:20]):
                self.files.write(relative, "# A\nText.")
                self.files.write(relative.split("/")[0] + "/other.md", "# B\nText.")
                self.refused(pattern, [self.files.path(relative.split("/")[0])])
        folder = self.files.path("k" * (own_content.checks.ID_CHARACTERS + 1))
        self.files.write(os.path.basename(folder) + "/a.md", "# A\nText.")
        self.refused(r"/k+: the ID its name makes has 129 characters, more than the 128 an ID may hold; rename the "
                     r"folder$", [folder])
        rows, fields = self.files.channel("c" * (own_content.checks.ID_CHARACTERS + 1) + ".csv", "title,status\n")
        self.refused(r"/c+\.csv: the ID its name makes has 129 characters, more than the 128 an ID may hold; rename "
                     r"the rows file$", channels=[(rows, fields)])

    def test_utf16_utf32_and_text_holding_nul_bytes_are_named_as_not_utf8(self):
        text = "title,status\nA,new\n"
        for encoding, said in (("utf-16", r":1: is UTF-16 text \(its byte order mark says so\), not UTF-8"),
                               ("utf-32", r":1: is UTF-32 text \(its byte order mark says so\), not UTF-8"),
                               ("utf-16-le", r":1: holds a NUL byte, which UTF-8 text does not: it may be UTF-16 "
                                             r"text, or no text at all")):
            with self.subTest(encoding=encoding):
                self.files.write(f"{encoding}/a.md", ("# A\n" + text).encode(encoding))
                self.refused(rf"{encoding}/a\.md{said}; save the file as UTF-8$", [self.files.path(encoding)])
                rows, fields = self.files.channel(f"{encoding}.csv", text.encode(encoding))
                self.refused(rf"{encoding}\.csv{said}; save the file as UTF-8$", channels=[(rows, fields)])
        self.files.write("nul/a.md", "# A\nText.\n\nMore\x00text.")
        self.refused(r"nul/a\.md:4: holds a NUL byte", [self.files.path("nul")])

    def test_a_file_of_nothing_or_only_front_matter_or_only_a_title_says_which(self):
        for name, text, said in (("empty", "", "is empty"), ("blank", " \n\t\r\n", "is empty"),
                                 ("matter", "---\r\ndraft: true\r\n---\r\n", "holds only front matter"),
                                 ("title", "---\nowner: mika\n---\n# Title\n\n", "holds no text besides its title")):
            with self.subTest(name=name):
                self.files.write(f"{name}/a.md", text)
                self.refused(rf"{name}/a\.md: {said}; write the article, or remove the file$",
                             [self.files.path(name)])

    def test_a_rule_of_dashes_atop_a_file_is_not_front_matter_that_hides_the_text_under_it(self):
        self.files.write("kb/a.md", "---\n# Title\n\nThe text a reader needs.\n\n---\nMore.")
        self.refused(r'kb/a\.md:4: the front matter opened by --- on line 1 holds "The text a reader needs\.", which '
                     r"is no key: value line; if the --- is a rule, not front matter, remove it or write \*\*\* "
                     r"instead$", [self.files.path("kb")])

    def test_control_and_direction_characters_of_a_file_name_are_escaped_in_the_message(self):
        self.files.write("kb/a\x1b[2J\u202eb.md", "---\nnever closed\n")
        message = self.refused(r"kb/a\\x1b\[2J\\u202eb\.md:1: the front matter", [self.files.path("kb")])
        self.assertFalse(any(unicodedata.category(c) in ("Cc", "Cf") for c in message), message)

    def test_a_csv_file_separated_by_semicolons_or_tabs_or_led_by_a_sep_line_says_so(self):
        for name, text, said in (
                ("semi", "title;status\nA;new\n", r'semi\.csv:1: the header row is one column, "title;status": the '
                                                   r"cells seem separated by ; \(a semicolon\), not commas; save "
                                                   r"the file as CSV with commas between cells$"),
                ("tab", "title\tstatus\nA\tnew\n", r'tab\.csv:1: the header row is one column, "title\\tstatus": '
                                                   r"the cells seem separated by tabs, not commas"),
                ("sep", "sep=,\ntitle,status\nA,new\n", r'sep\.csv:1: "sep=," is a spreadsheet\'s note of the '
                                                          r"separator, not a header row; remove the line$")):
            with self.subTest(name=name):
                rows, fields = self.files.channel(f"{name}.csv", text)
                self.refused(said, channels=[(rows, fields)])

    def test_a_column_named_by_a_fields_label_or_another_case_names_the_key(self):
        rows, fields = self.files.channel("r.csv", "Title,STATUS\nA,new\n")
        self.refused(r'r\.csv:1: column "Title" is not a field of the channel; the fields are title, status; rename '
                     r'the column "title" \(the key of the field labelled "Title"\)$', channels=[(rows, fields)])
        rows, fields = self.files.channel("s.csv", "title,STATUS\nA,new\n")
        self.refused(r's\.csv:1: column "STATUS" .*; rename the column "status" \(the key of the field labelled '
                     r'"Status"\)$', channels=[(rows, fields)])

    def test_a_cell_past_what_the_csv_reader_holds_says_so_and_names_an_unclosed_quote_as_a_cause(self):
        rows, fields = self.files.channel("r.csv", "title,status\nA,new\n" + "B" * (csv.field_size_limit() + 1)
                                          + ",new\n")
        self.refused(r"r\.csv:3: a cell holds more than 131,072 characters, more than any field takes \(a text "
                     r"field holds 100,000 at most\); shorten it, or close the quote opened in this row$",
                     channels=[(rows, fields)])
        rows, fields = self.files.channel("s.csv", 'title,status\nA,new\n"B,new\n' + "C,new\n" * 30_000)
        self.refused(r"s\.csv:3: a cell holds more than 131,072 characters.*close the quote opened in this row$",
                     channels=[(rows, fields)])

    def test_a_number_or_rating_cell_of_thousands_of_digits_is_refused_not_a_crash(self):
        digits = "9" * 5000
        for key in ("votes", "stars", "price"):
            with self.subTest(key=key):
                rows, fields = self.files.channel("r.csv", f"title,status,{key}\nA,new,{digits}\n", EVERY_TYPE)
                self.refused(rf'r\.csv:2: values\.{key} must be [^;]*, got "9+… \(5000 characters\)"; write one of at '
                             r"most 308 digits before the point$", channels=[(rows, fields)])
        rows, fields = self.files.channel("r.jsonl", f'{{"title": "A", "status": "new", "votes": {digits}}}\n',
                                          EVERY_TYPE)
        self.refused(r"r\.jsonl:1: is not JSON \(a number of more than 4,300 digits\); write one JSON object per "
                     r"line$", channels=[(rows, fields)])

    def test_a_long_cell_that_is_no_number_and_a_long_line_of_front_matter_are_refused_in_one_pass(self):
        """Each is read in one pass: before, a run of digits before a letter, or of spaces in a line that holds no
        colon, cost its square (minutes at these lengths, with the server not yet started)."""
        digits = "9" * 100_000
        rows, fields = self.files.channel("r.csv", f"title,status,votes\nA,new,{digits}x\n", EVERY_TYPE)
        self.files.write("kb/a.md", "---\nnote" + " " * 500_000 + "here\n---\nText.")
        started = time.process_time()  # the time of this process alone: other work on the machine does not count
        self.refused(r'r\.csv:2: values\.votes must be a number, got "9+… \(100001 characters\)"; write digits',
                     channels=[(rows, fields)])
        self.refused(r"kb/a\.md:2: the front matter opened by --- on line 1 holds .*, which is no key: value line",
                     [self.files.path("kb")])
        self.assertLess(time.process_time() - started, 5.0)

    def test_front_matter_lines_and_number_cells_are_told_as_the_expressions_first_written_told_them(self):
        first_key = re.compile(r"(?:\"[^\"]*\"|'[^']*'|[^\s#:-][^:]*?|-[^\s:][^:]*?)[ \t]*:(?:[ \t]|$)")
        first_number = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
        chooser = random.Random(3)
        for expression, first, alphabet, match in (
                (own_content._FRONT_MATTER_KEY, first_key, [" ", "\t", ":", "#", "-", '"', "'", "a", "é"], "match"),
                (own_content._NUMBER, first_number, ["1", "0", ".", "+", "-", "e", "E", "x", " ", "١"], "fullmatch")):
            texts = ["".join(chooser.choice(alphabet) for _ in range(chooser.randrange(0, 10))) for _ in range(20_000)]
            for text in texts:
                with self.subTest(text=text):
                    self.assertEqual(getattr(expression, match)(text) is None, getattr(first, match)(text) is None)

    def test_two_folders_of_one_name_clash_and_the_later_is_named(self):
        for side in ("a", "b"):
            self.files.write(f"{side}/Help/x.md", "# X\nText.")
        self.refused(r'b/Help: knowledge base ID "help" is taken by \S+/a/Help; rename the folder',
                     [self.files.path("a", "Help"), self.files.path("b", "Help")])

    def test_two_rows_files_of_one_name_clash_and_the_later_is_named(self):
        first = self.files.channel("a/req.csv", "title,status\nA,new\n")
        second = self.files.channel("b/req.jsonl", '{"title": "B", "status": "new"}\n')
        self.refused(r'b/req\.jsonl: record channel ID "req" is taken by \S+/a/req\.csv', channels=[first, second])

    def test_an_unknown_column_names_the_allowed_keys(self):
        rows, fields = self.files.channel("r.csv", "title,stauts\nA,new\n")
        self.refused(r'r\.csv:1: column "stauts" is not a field of the channel; the fields are title, status; '
                     r"rename the column, or add the field to \S+r\.csv\.fields\.json", channels=[(rows, fields)])

    def test_a_formula_column_or_a_missing_required_column_is_refused_at_the_header(self):
        rows, fields = self.files.channel("r.csv", "title,status,age\nA,new,3\n", EVERY_TYPE)
        self.refused(r'r\.csv:1: column "age" is a formula field', channels=[(rows, fields)])
        rows, fields = self.files.channel("s.csv", "status\nnew\n")
        self.refused(r's\.csv:1: has no column for the required field "title"', channels=[(rows, fields)])

    def test_a_bad_option_value_on_line_n_names_the_line_and_leaves_no_half_loaded_channel(self):
        rows, fields = self.files.channel("requests.csv", "title,status\nA,new\nB,planned\n\nC,Doing\nD,new\n")
        message = self.refused(r'requests\.csv:5: values\.status must be one of the option values, got "Doing"; '
                               r'write one of the option values: "new" \(New\), "planned" \(Planned\)$',
                               channels=[(rows, fields)])
        self.assertTrue(message.startswith(rows + ":5: "), message)

    def test_a_bad_number_checkbox_json_or_option_cell_names_its_line(self):
        fields = EVERY_TYPE
        for cells, pattern in (("votes\nA,new,lots", r':2: values\.votes must be a number, got "lots"'),
                               ("votes\nA,new,101", r":2: values\.votes must be between 0 and 100, got 101"),
                               ("paying\nA,new,maybe", r':2: values\.paying must be true or false, got "maybe"'),
                               ("extra\nA,new,{oops", r':2: values\.extra must be JSON text, got "\{oops"'),
                               ("areas\nA,new,web; tablet", r':2: values\.areas must hold only option values, got '
                                                             r'"tablet"')):
            with self.subTest(cells=cells):
                rows, definitions = self.files.channel("requests.csv", "title,status," + cells + "\n", fields)
                self.refused(r"requests\.csv" + pattern, channels=[(rows, definitions)])

    def test_a_repeated_unique_value_names_the_line_that_holds_it_first(self):
        ticket = {"key": "ticket", "type": "text", "is_unique": True}
        rows, fields = self.files.channel("r.csv", "title,status,ticket\nA,new,T-1\nB,new,T-2\nC,new,T-1\n",
                                          [TITLE, STATUS, ticket])
        self.refused(r'r\.csv:4: values\.ticket must be unique in this channel, got "T-1", which item itm-00001 '
                     r"\(line 2\) already has", channels=[(rows, fields)])

    def test_bad_field_definitions_name_the_field_file(self):
        rows = self.files.write("r.csv", "title\nA\n")
        for text, pattern in (('[{"key": "title", "type": "txt"}]', r"f\.json: field 'title' has type 'txt'"),
                              ('{"fields": [1], "colour": "red"}', r"f\.json: must hold a list of field definitions"),
                              ('[{"key": "title",', r"f\.json:1: is not JSON"),
                              ('[{"key": "s", "type": "select", "options": []}]', r"f\.json: field 's': options")):
            with self.subTest(text=text):
                fields = self.files.write("f.json", text)
                self.refused(pattern, channels=[(rows, fields)])

    def test_a_json_lines_line_that_is_no_object_or_names_an_unknown_key_is_refused_by_number(self):
        rows, fields = self.files.channel("r.jsonl", '{"title": "A", "status": "new"}\n[1]\n')
        self.refused(r"r\.jsonl:2: holds a JSON list, not an object", channels=[(rows, fields)])
        rows, fields = self.files.channel("s.jsonl", '{"title": "A", "status": "new"}\n{"title": "B", "owner": 1}\n')
        self.refused(r's\.jsonl:2: key "owner" is not a field of the channel; the fields are title, status',
                     channels=[(rows, fields)])

    def test_a_missing_rows_file_is_named_and_nothing_is_written(self):
        fields = self.files.write("f.json", json.dumps([TITLE]))
        self.refused(r"gone\.csv: no such file; check the path", channels=[(self.files.path("gone.csv"), fields)])

    def test_a_line_break_in_a_file_name_stays_on_one_line(self):
        error = own_content.ContentError("a\nb.csv:2", "bad\u2028value", "fix it")
        self.assertEqual(str(error), "a\\nb.csv:2: bad\\u2028value; fix it")

    def test_a_key_written_twice_in_a_json_lines_row_names_the_line_and_the_key(self):
        rows, fields = self.files.channel("r.jsonl", '{"title": "A", "status": "new"}\n\n'
                                                     '{"title": "B", "status": "new", "title": "C"}\n')
        self.refused(r'r\.jsonl:3: key "title" appears twice in one object; keep one of them$',
                     channels=[(rows, fields)])
        extra = {"key": "extra", "type": "json"}
        rows, fields = self.files.channel("s.jsonl", '{"title": "A", "status": "new", "extra": {"a": 1, "a": 2}}\n',
                                          [TITLE, STATUS, extra])
        self.refused(r's\.jsonl:1: key "a" appears twice in one object', channels=[(rows, fields)])

    def test_a_key_written_twice_in_a_field_file_names_the_line_and_the_key(self):
        rows = self.files.write("r.csv", "title\nA\n")
        text = '{"name": "Requests",\n "fields": [\n  {"key": "title", "type": "text",\n   "type": "json"}]}\n'
        fields = self.files.write("f.json", text)
        self.refused(r'f\.json:4: key "type" appears twice in one object; keep one of them$', channels=[(rows, fields)])
        fields = self.files.write("g.json", '{"name": "A",\n "fields": [], "name": "B"}')
        self.refused(r'g\.json:2: key "name" appears twice', channels=[(rows, fields)])

    def test_a_json_cell_with_a_key_written_twice_is_refused(self):
        rows, fields = self.files.channel("r.csv", 'title,status,extra\nA,new,"{""a"": 1, ""a"": 2}"\n', EVERY_TYPE)
        self.refused(r'r\.csv:2: values\.extra must be JSON text with no key twice in one object, got .*; keep one "a"',
                     channels=[(rows, fields)])

    def test_the_same_key_in_two_objects_and_a_key_like_another_in_a_string_are_no_repetition(self):
        rows, fields = self.files.channel("r.jsonl", '{"title": "A \\"title\\": x", "status": "new"}\n'
                                                     '{"title": "B", "status": "new"}\n')
        self.assertEqual([v["title"] for v in values_of(rows, fields)], ['A "title": x', "B"])
        text = '[{"key": "t", "type": "text", "label": "{\\"key\\": [x"},\n {"key": "u", "type": "text",\n "key": "v"}]'
        self.assertEqual(own_content.repeated_line(text, "key"), 3)


class SpecialFilesTest(unittest.TestCase):
    """Only regular files inside the folder are read, each up to its bound: a link out of the folder, a FIFO, a
    device, a file past the bound are refused in one line naming the file; the server exits 2, writing nothing."""

    def setUp(self):
        self.files = Folder(self)
        self.files.write("kb/a.md", "# A\nText.")
        self.files.write("outside/secret.md", "# Secret\nNot to be served.")
        self.kb = self.files.path("kb")

    def refused(self, pattern):
        """The folder refused by read_content, in one line matching `pattern`."""
        with self.assertRaises(own_content.ContentError) as caught:
            own_content.read_content([self.kb])
        self.assertEqual(str(caught.exception).splitlines(), [str(caught.exception)])
        self.assertRegex(str(caught.exception), pattern)

    def test_a_link_leading_out_of_the_folder_is_refused_naming_it(self):
        os.symlink(os.path.join(os.pardir, "outside", "secret.md"), self.files.path("kb", "secret.md"))
        self.refused(rf"^{re.escape(self.files.path('kb', 'secret.md'))}: is a link to \S+/outside/secret\.md, "
                     r"outside the folder; copy the file into the folder")

    def test_a_link_inside_the_folder_to_a_file_inside_it_is_served_as_an_article_of_its_own(self):
        os.makedirs(self.files.path("kb", "old"))
        os.symlink(os.path.join(os.pardir, "a.md"), self.files.path("kb", "old", "a-link.md"))
        articles = articles_of(self.kb)
        self.assertEqual(sorted(articles), ["a", "old-a-link"])
        self.assertEqual(articles["old-a-link"].content, "Text.")

    def test_a_link_to_nothing_is_refused_naming_it(self):
        os.symlink("gone.md", self.files.path("kb", "b.md"))
        self.refused(r"kb/b\.md: is a link to \S+/kb/gone\.md, which does not exist")

    @unittest.skipUnless(os.path.exists("/dev/zero"), "needs /dev/zero")
    def test_a_link_to_dev_zero_is_refused_before_anything_is_read(self):
        os.symlink("/dev/zero", self.files.path("kb", "zero.md"))
        self.refused(r"kb/zero\.md: is a link to /dev/zero, outside the folder")

    def test_folders_nested_deeper_than_pythons_recursion_limit_are_walked(self):
        deepest = nested(self, self.kb, DEEP)
        self.assertEqual(sorted(articles_of(self.kb)), ["a"])
        with open(os.path.join(deepest, "b.md"), "w") as file:
            file.write("# B\nText.")
        self.refused(r"kb/d/d/.*/d/b\.md: the ID its name makes has \d+ characters, more than the 128")

    def test_a_link_to_a_folder_outside_holding_markdown_is_refused_naming_it_and_one_inside_is_not_walked_again(self):
        for name, target in (("linked", os.path.join(os.pardir, "outside")), ("up", os.pardir)):
            with self.subTest(name=name):
                os.symlink(target, self.files.path("kb", name))
                self.refused(rf"^{re.escape(self.files.path('kb', name))}: is a link to a folder outside this one, "
                             r"\S+, which is not followed, and it holds Markdown \((outside/)?secret\.md\) that "
                             r"would go unserved; copy the folder into this one, or remove the link$")
                os.remove(self.files.path("kb", name))
        self.files.write("kb/guides/b.md", "# B\nText.")
        for name, target in (("self", os.curdir), ("loop", os.path.join(os.pardir, os.pardir, "kb")),
                             ("latest", "guides")):
            os.symlink(target, self.files.path("kb", "guides" if name == "loop" else "", name))
        os.symlink(os.path.join(os.pardir, "outside"), self.files.path("kb", ".hidden"))
        self.assertEqual(sorted(articles_of(self.kb)), ["a", "guides-b"])

    def test_a_link_to_a_folder_outside_holding_no_markdown_is_left_out_and_a_vast_one_refused(self):
        self.files.write("static/img/logo.png", b"\x89PNG")
        self.files.write("static/.cache/hidden.md", "# Hidden\nText.")  # hidden: never served, so no reason to refuse
        os.symlink(os.path.join(os.pardir, "static"), self.files.path("kb", "images"))
        self.assertEqual(sorted(articles_of(self.kb)), ["a"])  # images -> ../static, as docs folders often hold
        self.assertIsNone(own_content.outside_markdown(self.files.path("static")))
        self.assertIn("more than 2 entries", own_content.outside_markdown(self.files.path("static"), bound=2))

    def test_a_markdown_file_past_the_bound_is_refused_naming_the_bound(self):
        self.files.write("kb/big.md", b"# Big\n" + b"x" * own_content.MARKDOWN_MAX_BYTES)
        self.refused(r"kb/big\.md: is 1,048,582 bytes, larger than the 1,048,576 read from such a file; split it")

    def test_a_rows_or_field_file_past_its_bound_is_refused(self):
        rows, fields = self.files.channel("r.csv", "title,status\nA,new\n")
        with open(fields, "ab") as file:
            file.truncate(own_content.FIELDS_MAX_BYTES + 1)  # sparse: nothing is written to disk
        with self.assertRaisesRegex(own_content.ContentError, r"r\.csv\.fields\.json: is 1,048,577 bytes"):
            own_content.read_content(channels=[(rows, fields)])

    @unittest.skipUnless(hasattr(os, "mkfifo"), "needs FIFOs")
    def test_the_server_refuses_a_fifo_named_md_at_once_in_one_line_and_writes_nothing(self):
        os.mkfifo(self.files.path("kb", "pipe.md"))
        database = self.files.path("kb.db")
        server_refusal(self, ["--kb-from-dir", self.kb, "--kb-db", database],
                       rf"^mcp_server\.py: error: {re.escape(self.files.path('kb', 'pipe.md'))}: is a FIFO \(named "
                       r"pipe\), not a regular file; give a regular file, or remove it from the folder\n$")
        self.assertFalse(os.path.exists(database))

    @unittest.skipUnless(hasattr(os, "mkfifo"), "needs FIFOs")
    def test_the_server_refuses_a_fifo_as_rows_file_or_field_file_in_one_line(self):
        rows, fields = self.files.channel("r.csv", "title,status\nA,new\n")
        os.mkfifo(self.files.path("pipe.csv"))
        os.mkfifo(self.files.path("pipe.json"))
        before = listing(self.files.root)
        for argv in ([self.files.path("pipe.csv"), fields], [rows, self.files.path("pipe.json")]):
            with self.subTest(argv=argv):
                server_refusal(self, ["--channel-from", *argv, "--records-db", self.files.path("r.db")],
                                r"pipe\.(csv|json): is a FIFO \(named pipe\), not a file; check the path")
        self.assertEqual(listing(self.files.root), before)

    def test_the_server_refuses_deep_folders_and_numbers_of_thousands_of_digits_in_one_line(self):
        nested(self, self.kb, DEEP)
        deep = self.files.write("kb/" + "/".join(["d"] * 70) + "/b.md", "# B\nText.")
        server_refusal(self, ["--kb-from-dir", self.kb], rf"^mcp_server\.py: error: {re.escape(deep)}: the ID its name "
                       r"makes has 141 characters")
        rows, fields = self.files.channel("r.csv", "title,status,votes\nA,new," + "9" * 5000 + "\n", EVERY_TYPE)
        server_refusal(self, ["--channel-from", rows, fields], r"r\.csv:2: values\.votes must be a number")

    @unittest.skipUnless(os.path.exists("/dev/zero"), "needs /dev/zero")
    def test_the_server_refuses_a_link_to_dev_zero_at_once_in_one_line(self):
        os.symlink("/dev/zero", self.files.path("kb", "zero.md"))
        server_refusal(self, ["--kb-from-dir", self.kb], r"zero\.md: is a link to /dev/zero, outside the folder")


class DatabaseFilesTest(unittest.TestCase):
    """Content in database files: written only where new, found content served as it is, bad content writes nothing."""

    def setUp(self):
        self.files = Folder(self)
        self.kb_db, self.records_db = self.files.path("kb.db"), self.files.path("records.db")

    def open(self, *argv):
        workspace = open_workspace(parse_options(list(argv)))
        self.addCleanup(workspace.close)
        return workspace

    def files_argv(self):
        return ["--kb-db", self.kb_db, "--records-db", self.records_db, "--kb-from-dir", HELP_CENTER,
                "--channel-from", *REQUESTS]

    def test_a_database_that_may_not_be_written_still_serves_the_content_it_holds(self):
        self.open(*self.files_argv())  # written once
        content = own_content.read_content([HELP_CENTER], [REQUESTS])
        with kb_store.connect(self.kb_db, read_only=True) as kb, \
                record_store.connect(self.records_db, read_only=True) as records:
            kept = own_content.write_content(content, kb, records)
            self.assertEqual([source.source for source in kept], [source.source for source in content.sources()])
            self.assertTrue(kb.has_knowledge_base("help-center") and records.has_channel("feature-requests"))
            self.assertFalse(kb.has_knowledge_base("help") or records.has_channel("feature"))

    def test_content_is_written_once_and_served_as_found_with_peoples_changes_after_a_restart(self):
        first = open_workspace(parse_options(self.files_argv()))
        self.assertIn("knowledge base help-center from ", first.description)
        self.assertIn("(7 published articles, 1 draft)", first.description)
        self.assertNotIn("served as found", first.description)
        first.stores["knowledge_base"].save_article("help-center", "billing-refunds", content="Thirty days now.")
        first.stores["record"].edit_item("feature-requests", "itm-00001", {"status": "shipped"})
        first.close()
        second = self.open(*self.files_argv())
        kb, records = second.stores["knowledge_base"], second.stores["record"]
        self.assertEqual(kb.article("help-center", "billing-refunds")["content"], "Thirty days now.")
        self.assertEqual(records.item("feature-requests", "itm-00001")["values"]["status"], "shipped")
        self.assertEqual(len(records.item_ids("feature-requests")), 15)
        self.assertIn(f"knowledge base help-center already in {self.kb_db}, served as found, not loaded from "
                      f"{HELP_CENTER} (to load the files again, remove {self.kb_db} or serve from memory)",
                      second.description)
        self.assertIn(f"record channel feature-requests already in {self.records_db}, served as found",
                      second.description)

    def test_a_database_that_holds_the_demo_gets_the_content_it_lacks_beside_it(self):
        open_workspace(parse_options(["--demo", "--kb-db", self.kb_db])).close()
        workspace = self.open("--demo", "--kb-db", self.kb_db, "--kb-from-dir", HELP_CENTER)
        kb = workspace.stores["knowledge_base"]
        self.assertEqual(kb.article("help-center", "export-notes")["title"], "Export your notes")
        self.assertEqual(kb.article(demo.KNOWLEDGE_BASE, "art-00001")["article_id"], "art-00001")
        self.assertIn("knowledge base help-center from", workspace.description)
        self.assertIn("knowledge base IDs: kb-support, help-center", workspace.instructions)

    def test_a_bad_row_creates_no_database_file_and_leaves_an_existing_one_byte_for_byte(self):
        rows, fields = self.files.channel("requests.csv", "title,status\nA,new\nB,Doing\n")
        argv = ["--records-db", self.records_db, "--channel-from", rows, fields]
        with self.assertRaisesRegex(own_content.ContentError, r"requests\.csv:3: values\.status"):
            open_workspace(parse_options(argv))
        self.assertFalse(os.path.exists(self.records_db))
        open_workspace(parse_options(["--demo", "--records-db", self.records_db])).close()
        with open(self.records_db, "rb") as file:
            before = hashlib.sha256(file.read()).hexdigest()
        with self.assertRaises(own_content.ContentError):
            open_workspace(parse_options(argv))
        with open(self.records_db, "rb") as file:
            self.assertEqual(hashlib.sha256(file.read()).hexdigest(), before)

    def test_a_row_the_files_allow_but_the_database_refuses_writes_nothing_of_that_run(self):
        parent = {"key": "parent", "type": "relation", "related_channel_id": "a"}
        a = self.files.channel("a.csv", "title,status\nA,new\n")
        b = self.files.channel("b.csv", 'title,status,parent\nB,new,"[""itm-00001""]"\n', [TITLE, STATUS, parent])
        first = open_workspace(parse_options(["--records-db", self.records_db,
                                                                    "--channel-from", *a]))
        first.stores["record"].delete_item("a", "itm-00001")  # a person's change the files know nothing of
        first.close()
        argv = ["--records-db", self.records_db, "--kb-db", self.kb_db, "--kb-from-dir", HELP_CENTER,
                "--channel-from", *a, "--channel-from", *b]
        with self.assertRaisesRegex(own_content.ContentError, r'b\.csv:2: values\.parent must name items that '
                                                                r'exist in record channel "a"'):
            open_workspace(parse_options(argv))
        with record_store.connect(self.records_db) as records, kb_store.connect(self.kb_db) as kb:
            self.assertEqual(records.item_ids("b"), [])
            with self.assertRaises(rejections.NotFound):
                records.schema("b")
            with self.assertRaises(rejections.NotFound):
                kb.article("help-center", "billing-refunds")

    def test_the_stores_refuse_a_taken_id_with_id_taken_and_a_bad_one_with_a_plain_value_error(self):
        with kb_store.connect() as kb, record_store.connect() as records:
            kb.create_knowledge_base("x")
            records.create_channel("x", "X", [TITLE])
            for create in (lambda: kb.create_knowledge_base("x"), lambda: records.create_channel("x", "X", [TITLE])):
                with self.assertRaises(rejections.IdTaken):
                    create()
            with self.assertRaises(ValueError) as caught:
                records.create_channel("y", "Y", [dict(TITLE, type="txt")])
            self.assertNotIsInstance(caught.exception, rejections.IdTaken)


class ServerOptionsTest(unittest.TestCase):
    """--kb-from-dir and --channel-from on the command line and over stdio."""

    def test_the_examples_are_served_over_stdio_searched_listed_and_named_in_the_instructions(self):
        server = ServerProcess("--kb-from-dir", "examples/help-center", "--channel-from",
                               "examples/feature-requests.csv", "examples/feature-requests.fields.json")
        self.addCleanup(lambda: server.process.poll() is not None or server.close())
        instructions = server.handshake()["result"]["instructions"]
        self.assertIn("knowledge base IDs: help-center; record channel IDs: feature-requests", instructions)
        found = server.call("search_knowledge_base", {"knowledge_base_id": "help-center", "query": "refund"})
        self.assertEqual(found["structuredContent"]["results"][0]["citation"]["article_id"], "billing-refunds")
        page = server.call("list_record_items", {"record_channel_id": "feature-requests", "limit": 50})
        self.assertEqual(len(page["structuredContent"]["items"]), 15)
        draft = server.call("read_knowledge_article", {"knowledge_base_id": "help-center",
                                                       "article_id": "offline-mode"})
        self.assertEqual(rejection(draft)["error"], "not_found")
        status, _ = server.close()
        self.assertEqual(status, 0)
        self.assertIn("knowledge base help-center from examples/help-center (7 published articles, 1 draft); "
                      "record channel feature-requests from examples/feature-requests.csv (15 items)", server.log_text)

    def test_a_bad_row_exits_2_with_exactly_one_line_on_stderr_and_nothing_on_stdout(self):
        files = Folder(self)
        rows, fields = files.channel("requests.csv", "title,status\nA,new\nB,Doing\n")
        run = subprocess.run([sys.executable, SERVER, "--channel-from", rows, fields, "--records-db",
                              files.path("r.db")], capture_output=True, timeout=WAIT, cwd=ROOT,
                             stdin=subprocess.DEVNULL)
        self.assertEqual((run.returncode, run.stdout), (2, b""))
        self.assertEqual(run.stderr.count(b"\n"), 1, run.stderr)
        self.assertIn(f"mcp_server.py: error: {rows}:3: values.status must be one of the option values, got "
                      '"Doing"'.encode(), run.stderr)
        self.assertFalse(os.path.exists(files.path("r.db")))

    def test_a_folder_without_markdown_is_refused_as_an_option_with_the_line_that_points_to_help(self):
        files = Folder(self)
        os.makedirs(files.path("empty"))
        files.write("text/notes.txt", "hello")
        for folder, problem in (("empty", "is empty"), ("text", "holds no Markdown \\(\\.md\\) file")):
            with self.subTest(folder=folder):
                server_refusal(self, ["--kb-from-dir", folder], rf"\Amcp_server\.py: error: {folder}: {problem}"
                               r"[^;]*; put .* \(python3 mcp_server\.py --help explains every option\)\n\Z",
                               cwd=files.root)

    def test_bad_content_options_exit_2_with_one_line_before_anything_is_opened(self):
        files = Folder(self)
        rows, fields = files.channel("bugs.csv", "title,status\nA,new\n")
        files.write("kb-support/a.md", "# A\nText.")
        cases = {
            ("--kb-from-dir", files.path("nowhere")): "no such folder",
            ("--kb-from-dir", rows): "is a regular file, not a folder",
            ("--channel-from", fields, fields): "is neither a .csv nor a .jsonl file",
            ("--channel-from", rows, files.path("none.json")): "no such file",
            ("--channel-from", rows, files.root): "is a folder, not a file",
            ("--channel-from", rows): "expected 2 arguments",
            ("--demo", "--kb-from-dir", files.path("kb-support")): 'knowledge base ID "kb-support" is taken by --demo',
            ("--demo", "--channel-from", rows, fields): 'record channel ID "bugs" is taken by --demo',
            ("--kb-from-dir", HELP_CENTER, "--kb-from-dir", HELP_CENTER + os.sep): "is taken by",
            ("--read-only", "--kb-db", "k.db", "--records-db", "r.db", "--kb-from-dir", HELP_CENTER):
                "--read-only serves existing files",
            ("--kb-from-dir", os.path.dirname(files.write("\u2605/a.md", "# A\nText."))):
                "its name holds no letter or digit to make an ID of; rename",
        }
        if hasattr(os, "mkfifo"):
            os.mkfifo(files.path("pipe"))
            cases["--kb-from-dir", files.path("pipe")] = "pipe: is a FIFO (named pipe), not a folder"
        if os.path.exists("/dev/null"):
            cases["--kb-from-dir", "/dev/null"] = "/dev/null: is a character device, not a folder"
        assert_server_refuses(self, cases)

    def test_content_options_alone_are_something_to_serve(self):
        for argv in (["--kb-from-dir", HELP_CENTER], ["--channel-from", *REQUESTS]):
            with self.subTest(argv=argv):
                options = parse_options(argv)
                self.assertEqual((options.kb_db, options.records_db, options.demo), (None, None, False))
        self.assertIn("--kb-from-dir", server_options_refused([])[1])

    def test_help_explains_both_content_options(self):
        stdout = io.StringIO()
        with contextlib.redirect_stdout(stdout), self.assertRaises(SystemExit):
            parse_options(["--help"])
        self.assertIn("--kb-from-dir DIR", stdout.getvalue())
        self.assertIn("--channel-from ROWS FIELDS", stdout.getvalue())

    def test_grants_still_decide_the_ids_the_instructions_name(self):
        options = parse_options(["--kb-from-dir", HELP_CENTER, "--grant-kb", "kb-x"])
        self.assertIn("knowledge base IDs: kb-x.", instructions_for(options))


if __name__ == "__main__":
    unittest.main()
