"""The help centre's articles: readable, varied, distinct, and found first by the questions people ask."""

import collections
import glob
import itertools
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

from tests.helpers import ROOT  # (importing it puts the project on the path)
from osfoundry_tools.content import help_center
from osfoundry_tools.stores import kb_store

DEMO_ARTICLES = 80  # the demo's knowledge base, one article per subject
OTHER_SEED = 7
MANY = 5000  # articles the scaled generator must keep distinct and in bounds
TITLE_LIMIT = 200  # characters: what a title may take anywhere
CATALOGUE_TITLE_LIMIT = 80  # characters: what a catalogue title takes
BODY_LIMIT = 4000  # characters, far under the 100,000 a store accepts
BODY_WORDS = (120, 350)  # words of a catalogue article's body
PER_CATEGORY = 20  # subjects
PACKAGE = os.path.join(ROOT, "osfoundry_tools")
CATALOGUE = os.path.join(PACKAGE, "content", "help_center_catalogue")


def search(store, query):
    """The search tool's answer to `query` over the demo knowledge base: its best 3 articles."""
    return store.call_tool("search_knowledge_base", {"knowledge_base_id": "kb-support", "query": query, "limit": 3})


def demo_store(seed):
    """A fresh knowledge base of the 80 demo articles written with random.Random(seed), and each title's subject."""
    store = kb_store.connect(":memory:")
    store.create_knowledge_base("kb-support", "Support")
    subjects = {}
    for article in help_center.write_articles(random.Random(seed), DEMO_ARTICLES):
        store.create_article("kb-support", article.title, article.content)
        subjects[article.title] = article.subject
    return store, subjects


class CatalogueTest(unittest.TestCase):
    def test_80_articles_cover_80_distinct_subjects_with_distinct_titles_20_in_every_category(self):
        articles = help_center.write_articles(random.Random(1), DEMO_ARTICLES)
        self.assertEqual(len({a.subject for a in articles}), DEMO_ARTICLES)
        self.assertEqual(len({a.title for a in articles}), DEMO_ARTICLES)
        self.assertEqual(collections.Counter(a.category for a in articles),
                         {category: PER_CATEGORY for category in help_center.CATEGORIES})

    def test_the_first_articles_take_the_categories_in_turn(self):
        articles = help_center.write_articles(random.Random(1), 8)
        self.assertEqual([a.category for a in articles], list(help_center.CATEGORIES) * 2)

    def test_catalogue_articles_have_short_titles_and_bodies_of_120_to_350_words_with_numbered_steps(self):
        for article in help_center.write_articles(random.Random(1), DEMO_ARTICLES):
            with self.subTest(subject=article.subject):
                self.assertLessEqual(len(article.title), CATALOGUE_TITLE_LIMIT)
                words = len(article.content.split())
                self.assertTrue(BODY_WORDS[0] <= words <= BODY_WORDS[1], words)
                self.assertRegex(article.content, r"\n1\. \S.*\n2\. \S")
                self.assertNotIn("{", article.content)  # every {click} was filled in

    def test_write_articles_writes_exactly_count_and_refuses_a_negative_count(self):
        self.assertEqual(help_center.write_articles(random.Random(1), 0), [])
        self.assertEqual(len(help_center.write_articles(random.Random(1), 3)), 3)
        with self.assertRaisesRegex(ValueError, "count must be 0 or more, not -1"):
            help_center.write_articles(random.Random(1), -1)


class WordingTest(unittest.TestCase):
    def test_the_same_seed_writes_the_same_articles(self):
        self.assertEqual(help_center.write_articles(random.Random(3), 300),
                         help_center.write_articles(random.Random(3), 300))

    def test_another_seed_keeps_the_catalogue_titles_and_words_nearly_every_body_otherwise(self):
        one = help_center.write_articles(random.Random(1), DEMO_ARTICLES)
        other = help_center.write_articles(random.Random(OTHER_SEED), DEMO_ARTICLES)
        self.assertEqual([a.title for a in one], [a.title for a in other])
        self.assertGreater(sum(a.content != b.content for a, b in zip(one, other)), DEMO_ARTICLES * 9 // 10)

    def test_the_80_bodies_open_lead_and_close_in_varied_words(self):
        articles = help_center.write_articles(random.Random(1), DEMO_ARTICLES)
        openings = {" ".join(a.content.split()[:3]) for a in articles}
        closings = {a.content.rsplit("\n\n", 1)[1] for a in articles}
        step_leads = {re.search(r"\n\n([^\n]*)\n1\. ", a.content).group(1) for a in articles}
        self.assertGreaterEqual(len(openings), 6)
        self.assertGreaterEqual(len(closings), 6)
        self.assertGreaterEqual(len(step_leads), 5)


class ScaleTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.articles = help_center.write_articles(random.Random(1), MANY)

    def test_5000_articles_keep_distinct_titles_without_numbering(self):
        titles = [a.title for a in self.articles]
        self.assertEqual(len(set(titles)), MANY)
        self.assertFalse([t for t in titles if re.search(r"\(\d+\)$", t)])

    def test_5000_articles_keep_titles_and_bodies_within_their_limits(self):
        self.assertLessEqual(max(len(a.title) for a in self.articles), TITLE_LIMIT)
        self.assertLessEqual(max(len(a.content) for a in self.articles), BODY_LIMIT)
        self.assertGreaterEqual(min(len(a.content.split()) for a in self.articles), BODY_WORDS[0])

    def test_a_variant_title_starts_from_its_subjects_title_and_the_first_80_are_the_subjects(self):
        titles = {s.key: s.title for s in help_center.SUBJECTS}
        for article in self.articles[:DEMO_ARTICLES]:
            self.assertEqual(article.title, titles[article.subject])
        for article in self.articles[DEMO_ARTICLES:]:
            with self.subTest(title=article.title):
                self.assertTrue(article.title.startswith(titles[article.subject].rstrip("?")), article.title)
                self.assertGreater(len(article.title), len(titles[article.subject]))

    def test_variants_are_spread_over_every_subject(self):
        counts = collections.Counter(a.subject for a in self.articles)
        self.assertEqual(set(counts), set(help_center.SUBJECT_KEYS))
        self.assertGreaterEqual(min(counts.values()), 10)

    def test_a_title_met_again_is_skipped_and_numbering_comes_only_once_all_are_used(self):
        subject = help_center.SUBJECTS[0]
        titled = help_center._titled(iter([(subject, ()), (subject, ())]))
        self.assertEqual([title for _, _, title in itertools.islice(titled, 3)],
                         ["Reset your password", "Reset your password (2)", "Reset your password (3)"])


class VariantTest(unittest.TestCase):
    def test_a_phone_variant_names_the_phone_says_tap_and_carries_its_note(self):
        subject = help_center.SUBJECTS[0]
        android = next(q for q in help_center.DEVICES if q.key == "android")
        text = help_center.body(random.Random(1), subject, (android,))
        self.assertIn(android.note, text)
        self.assertIn("on Android", text)
        self.assertIn("Tap Save password.", text)
        self.assertNotIn("Click", text)

    def test_a_billing_variant_for_a_country_and_plan_names_both_in_its_title(self):
        title = help_center.qualified_title("Why was my card declined?", ["in Germany"], ["Team plan"])
        self.assertEqual(title, "Why was my card declined in Germany? (Team plan)")
        germany = next(q for q in help_center.BILLING_COUNTRIES if q.key == "germany")
        self.assertIn("pay in euros", germany.note)


class ReviseTest(unittest.TestCase):
    def test_revise_always_changes_the_body_and_keeps_its_opening(self):
        rng = random.Random(4)
        for article in help_center.write_articles(random.Random(1), 400):
            revised = help_center.revise(rng, article)
            self.assertNotEqual(revised, article.content)
            self.assertEqual(revised.split("\n\n")[0], article.content.split("\n\n")[0])

    def test_revisions_in_a_row_keep_changing_and_stay_bounded(self):
        rng = random.Random(5)
        article = help_center.write_articles(random.Random(1), 1)[0]
        start = len(article.content)
        for _ in range(300):
            revised = help_center.revise(rng, article)
            self.assertNotEqual(revised, article.content)
            article = help_center.HelpArticle(article.title, revised, article.category, article.subject)
        self.assertLess(len(article.content), start + 400)
        self.assertLessEqual(article.content.count(help_center.NOTE), help_center.MAX_NOTES)
        self.assertRegex(article.content, r"\n1\. ")

    def test_the_same_seed_revises_the_same_way(self):
        article = help_center.write_articles(random.Random(1), 5)[4]
        self.assertEqual(help_center.revise(random.Random(9), article), help_center.revise(random.Random(9), article))


class QuestionsTest(unittest.TestCase):
    def test_questions_name_listed_subjects_at_least_three_per_category(self):
        categories = {s.key: s.category for s in help_center.SUBJECTS}
        self.assertLessEqual({subject for _, subject in help_center.QUESTIONS}, set(categories))
        counts = collections.Counter(categories[subject] for _, subject in help_center.QUESTIONS)
        self.assertTrue(all(counts[category] >= 3 for category in help_center.CATEGORIES), counts)

    def test_each_question_finds_its_article_first(self):
        for seed in (1, OTHER_SEED):
            store, subjects = demo_store(seed)
            for question, subject in help_center.QUESTIONS:
                with self.subTest(seed=seed, question=question):
                    results = search(store, question)["results"]
                    self.assertEqual(subjects[results[0]["title"]], subject, [r["title"] for r in results])

    def test_a_question_of_no_listed_subject_still_answers_without_error(self):
        store, subjects = demo_store(1)
        for question in ("how do I bake sourdough bread", "quantum flux capacitor"):
            with self.subTest(question=question):
                answer = search(store, question)
                self.assertNotIn("error", answer)
                self.assertLessEqual(len(answer["results"]), 3)
                self.assertLessEqual({r["title"] for r in answer["results"]}, set(subjects))
        self.assertEqual(search(store, "quantum flux capacitor")["results"], [])


def package_data():
    """The patterns pyproject.toml's package-data gives for the package, relative to its folder."""
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as file:
        (line,) = re.findall(r"^osfoundry_tools = \[(.*)\]$", file.read().split("[tool.setuptools.package-data]")[1],
                             re.M)
    return re.findall(r'"([^"]+)"', line)


def import_error(change):
    """The last line the import of help_center prints from a copy of the package whose billing subjects `change`
    has edited, or "" if the import succeeds."""
    with tempfile.TemporaryDirectory() as folder:
        shutil.copytree(PACKAGE, os.path.join(folder, "osfoundry_tools"), ignore=shutil.ignore_patterns("__pycache__"))
        path = os.path.join(folder, "osfoundry_tools", "content", "help_center_catalogue", "subjects", "billing.json")
        with open(path, encoding="utf-8") as file:
            text = file.read()
        with open(path, "w", encoding="utf-8") as file:
            file.write(change(text))
        code = f"import sys; sys.path.insert(0, {folder!r}); import osfoundry_tools.content.help_center"
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
        return done.stderr.strip().splitlines()[-1] if done.returncode else ""


class CatalogueFilesTest(unittest.TestCase):
    def test_an_install_copies_every_file_of_the_catalogue(self):
        copied = {path for pattern in package_data() for path in glob.glob(os.path.join(PACKAGE, pattern))}
        data = {os.path.join(where, name) for where, _, names in os.walk(CATALOGUE) for name in names
                if name.endswith(".json")}
        self.assertEqual(copied, data)
        self.assertGreaterEqual(len(data), len(help_center.CATEGORIES) + 6)

    def test_a_file_edited_wrong_stops_the_import_with_one_error_naming_the_file(self):
        def lose_a_summary(text):
            subjects = json.loads(text)
            del subjects[0]["summary"]
            return json.dumps(subjects)

        self.assertEqual(import_error(lambda text: text), "")
        self.assertEqual(import_error(lose_a_summary),
                         "ValueError: help_center_catalogue/subjects/billing.json: subject 1 lacks summary")
        self.assertRegex(import_error(lambda text: text.replace("{click}", "{tap}", 1)),
                         r"^ValueError: help_center_catalogue/subjects/billing\.json: .* may hold no braces but "
                         r"\{click\}, \{Click\}")
        self.assertRegex(import_error(lambda text: text[:-3]),
                         r"^ValueError: help_center_catalogue/subjects/billing\.json: is not JSON: ")


if __name__ == "__main__":
    unittest.main()
