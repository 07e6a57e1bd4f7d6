"""The optional re-ranker (--rerank, stores/kb_rerank.py): its model's checks, its tokenizer and vectors, and a
search it re-orders. Its tests skip, saying how to install it, where numpy or the weights are missing (make test);
`make rerank` installs them into .venv and runs this module there, where a skip is a failure."""

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from osfoundry_tools.stores import kb_rerank, kb_search, kb_store

INSTALL = "the re-ranker is not installed: `make rerank` installs it into .venv and runs these tests"
REQUIRED = bool(os.environ.get("RERANK_REQUIRED"))
AVAILABLE = importlib.util.find_spec("numpy") is not None and kb_rerank.packaged_folder() is not None and \
    os.path.isdir(kb_rerank.packaged_folder() or "")
_ENCODER: "list[kb_rerank.Reranker]" = []  # the model, loaded once for the module


def encoder() -> "kb_rerank.Reranker":
    if not _ENCODER:
        _ENCODER.append(kb_rerank.Reranker())
    return _ENCODER[0]


class Installed(unittest.TestCase):
    def setUp(self):
        if not AVAILABLE:
            if REQUIRED:
                self.fail(INSTALL)
            self.skipTest(INSTALL)


class WithoutTheExtraTest(unittest.TestCase):
    """These run everywhere: without the weights, --rerank is refused in one line naming the make target."""

    def test_a_missing_folder_names_the_make_target(self):
        with tempfile.TemporaryDirectory() as folder:
            with self.assertRaises(kb_rerank.RerankUnavailable) as refused:
                try:
                    kb_rerank.Encoder(folder)
                except kb_rerank.RerankUnavailable:
                    raise
            self.assertIn(kb_rerank.MAKE_TARGET, str(refused.exception))
            self.assertNotIn("\n", str(refused.exception))

    def test_the_command_refuses_a_folder_without_the_weights_in_one_line_and_writes_no_file(self):
        with tempfile.TemporaryDirectory() as folder:
            kb_db = os.path.join(folder, "kb.db")
            done = subprocess.run([sys.executable, "mcp_server.py", "--kb-db", kb_db, "--rerank", "--rerank-model",
                                   folder], capture_output=True, text=True, stdin=subprocess.DEVNULL,
                                  cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
            self.assertEqual(done.returncode, 2)
            self.assertEqual(done.stderr.count("\n"), 1, done.stderr)
            self.assertIn(kb_rerank.MAKE_TARGET, done.stderr)
            self.assertEqual(os.listdir(folder), [])

    def test_rerank_model_without_rerank_is_refused(self):
        from osfoundry_tools.server.options import parse_options
        with self.assertRaises(SystemExit), open(os.devnull, "w") as quiet:
            stderr, sys.stderr = sys.stderr, quiet
            try:
                parse_options(["--demo", "--rerank-model", "/nowhere"])
            finally:
                sys.stderr = stderr

    def test_a_file_that_is_not_the_models_is_refused_and_left_as_it_was(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "vocab.txt")
            with open(path, "w") as handle:
                handle.write("[PAD]\n[UNK]\n")
            with self.assertRaises(kb_rerank.RerankUnavailable) as refused:
                kb_rerank.checked_bytes(path, kb_rerank.VOCAB_SHA256)
            self.assertIn("SHA-256", str(refused.exception))
            with open(path) as handle:
                self.assertEqual(handle.read(), "[PAD]\n[UNK]\n")

    def test_word_pieces_split_as_berts_tokenizer(self):
        pieces = kb_rerank.WordPieces(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "un", "##aff", "##able", "hello", ",", "!"])
        self.assertEqual(pieces.words("Héllo, unaffable!"), ["hello", ",", "unaffable", "!"])
        self.assertEqual(pieces.encode("Héllo, unaffable! xyz", 16), [2, 7, 8, 4, 5, 6, 9, 1, 3])
        self.assertEqual(pieces.encode("hello hello hello", 4), [2, 7, 7, 3])

    def test_sections_are_cut_at_headings_the_title_with_the_first(self):
        self.assertEqual(kb_rerank.section_texts("Pins", "Intro\n## Pin a version\nuse ==\n## Upgrade\nrun it"),
                         ["Pins\nIntro", "## Pin a version\nuse ==", "## Upgrade\nrun it"])
        self.assertEqual(kb_rerank.section_texts("Only", ""), ["Only"])


class StubReranker:
    """Stands for kb_rerank.Reranker where numpy is missing: a page's nearness is given by its title."""

    def __init__(self, nearness):
        self.nearness, self.blend = nearness, kb_rerank.BLEND

    def section_vectors(self, version, title, text):
        return title

    def blended(self, question, lexical, vectors):
        best = max(lexical.values())
        return {number: self.nearness[vectors[number]] + self.blend * lexical[number] / best for number in lexical}


class ReorderTest(unittest.TestCase):
    """How a re-ranker's blend re-orders the weighed matches (kb_search.reranked), whatever computes it."""

    def test_the_weighed_scores_are_dealt_out_in_the_blends_order(self):
        weighed = {1: -5.0, 2: -4.0, 3: -1.0}
        titles = {1: "a", 2: "b", 3: "c"}
        texts = {number: kb_sections_text("") for number in titles}
        rerank = kb_search.Rerank(StubReranker({"a": 0.1, "b": 0.9, "c": 0.3}), "q")
        self.assertEqual(kb_search.reranked(weighed, titles, texts, rerank), {2: -5.0, 3: -4.0, 1: -1.0})

    def test_a_near_tie_of_nearness_is_settled_by_the_words(self):
        weighed = {1: -5.0, 2: -1.0}
        texts = {number: kb_sections_text("") for number in weighed}
        rerank = kb_search.Rerank(StubReranker({"a": 0.50, "b": 0.55}), "q")
        self.assertEqual(kb_search.reranked(weighed, {1: "a", 2: "b"}, texts, rerank), {1: -5.0, 2: -1.0})


def kb_sections_text(content):
    from osfoundry_tools.stores import kb_sections
    return kb_sections.article_text(content)


class ModelTest(Installed):
    def test_the_published_pair_is_as_near_as_the_model_says(self):
        vectors = encoder().encoder.embed(["A man is eating food.", "A man is eating a piece of bread.",
                                           "The weather is lovely today."])
        self.assertAlmostEqual(float(vectors[0] @ vectors[1]), 0.7553, places=3)
        self.assertLess(float(vectors[0] @ vectors[2]), 0.2)

    def test_a_copy_of_the_weights_in_a_folder_of_the_users_own_is_used(self):
        with tempfile.TemporaryDirectory() as folder:
            for name in ("model.safetensors", "vocab.txt"):
                shutil.copy(os.path.join(kb_rerank.packaged_folder(), name), folder)
            own = kb_rerank.Encoder(folder).embed(["pin a version"])
            self.assertAlmostEqual(float(own[0] @ encoder().encoder.embed(["pin a version"])[0]), 1.0, places=5)


class RerankedSearchTest(Installed):
    QUESTION = "my laptop battery drains too fast"
    PAGES = (("Fast charging", "## Fast charging\nA battery charges fast with the fast charger: plug the battery "
                               "charger into the port on the left."),
             ("Power use", "## Make the charge last longer\nLower the screen brightness and close background apps so "
                           "the laptop runs longer between charges."))

    def search(self, store, reranker):
        store.reranker = reranker
        return [r["title"] for r in store.call_tool("search_knowledge_base", {
            "knowledge_base_id": "kb_docs", "query": self.QUESTION})["results"]]

    def test_the_page_in_other_words_comes_first_only_with_the_reranker(self):
        store = kb_store.connect(granted=["kb_docs"])
        self.addCleanup(store.close)
        store.create_knowledge_base("kb_docs", "Docs")
        for title, content in self.PAGES:
            store.create_article("kb_docs", title, content)
        self.assertEqual(self.search(store, None), ["Fast charging", "Power use"])
        self.assertEqual(self.search(store, encoder()), ["Power use", "Fast charging"])

    def test_each_section_vector_is_computed_once(self):
        reranker = encoder()
        calls = []
        embed = reranker.encoder.embed
        reranker.encoder.embed = lambda texts, most=kb_rerank.SECTION_TOKENS: calls.append(len(texts)) or embed(
            texts, most)
        self.addCleanup(setattr, reranker.encoder, "embed", embed)
        reranker.section_vectors(("v", 1), "T", "## A\nx\n## B\ny")
        reranker.section_vectors(("v", 1), "T", "## A\nx\n## B\ny")
        self.assertEqual(calls, [2])


if __name__ == "__main__":
    unittest.main()
