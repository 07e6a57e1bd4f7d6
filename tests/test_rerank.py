"""The optional re-ranker (--rerank, stores/kb_rerank.py): its model's checks, its tokenizer and vectors, and a
search it re-orders. Its tests skip, saying how to install it, where numpy or the weights are missing (make test);
`make rerank` installs them into .venv and runs this module there, where a skip is a failure."""

import contextlib
import importlib.util
import io
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

from osfoundry_tools.stores import kb_rerank, kb_search, kb_store, kb_vectors
from tests import postgres_helpers

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

    def test_without_the_extra_the_advice_fits_the_way_the_server_was_started(self):
        from osfoundry_tools.server.options import parse_options
        advice = {"mcp_server.py": ["make rerank", ".venv/bin/python mcp_server.py --rerank"],
                  "python3 -m osfoundry_tools": ["make rerank", ".venv/bin/python -m osfoundry_tools --rerank"],
                  "osfoundry-mcp": ["pipx install --force '.[rerank]'", "uvx --from '.[rerank]' osfoundry-mcp"]}
        for prog, named in advice.items():
            with self.subTest(prog=prog), mock.patch.object(kb_rerank, "packaged_folder", return_value=None), \
                    contextlib.redirect_stderr(io.StringIO()) as said, self.assertRaises(SystemExit):
                parse_options(["--demo", "--rerank"], prog)
            self.assertEqual(said.getvalue().count("\n"), 1, said.getvalue())
            for words in named:
                self.assertIn(words, said.getvalue())
            if prog != "mcp_server.py":
                self.assertNotIn("mcp_server.py", said.getvalue())

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

    def test_without_rerank_no_vectors_are_kept_and_no_table_is_made(self):
        store = kb_store.connect(postgres_helpers.default_location(), granted=["kb_docs"])
        self.addCleanup(store.close)
        store.create_knowledge_base("kb_docs", "Docs")
        cited = store.create_article("kb_docs", "Pins", "## Pin a version\nuse ==")
        store.save_article("kb_docs", cited["article_id"], content="## Pin a version\nuse == or ~=")
        store.call_tool("search_knowledge_base", {"knowledge_base_id": "kb_docs", "query": "pin a version"})
        self.assertFalse(table_exists(store, kb_vectors.KEPT))

    def test_blas_is_held_to_one_thread_unless_the_user_said_otherwise(self):
        script = ("import os\nfrom osfoundry_tools.stores import kb_rerank\ntry:\n    kb_rerank.one_thread_numpy()\n"
                  "except kb_rerank.RerankUnavailable:\n    pass\n"
                  "print(' '.join(os.environ[name] for name in kb_rerank.BLAS_THREADS))")
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        plain = {name: value for name, value in os.environ.items() if name not in kb_rerank.BLAS_THREADS}
        ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=root, env=plain)
        self.assertEqual(ran.stdout.split(), ["1", "1", "1"], ran.stderr)
        ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=root,
                             env=dict(plain, OMP_NUM_THREADS="2"))
        self.assertEqual(ran.stdout.split(), ["1", "2", "1"], ran.stderr)

    def test_sections_are_cut_at_headings_the_title_before_each(self):
        self.assertEqual(kb_rerank.section_texts("Pins", "Intro\n## Pin a version\nuse ==\n## Upgrade\nrun it"),
                         ["Pins\nIntro", "Pins\n## Pin a version\nuse ==", "Pins\n## Upgrade\nrun it"])
        self.assertEqual(kb_rerank.section_texts("Only", ""), ["Only"])
        self.assertEqual(kb_rerank.section_texts("Head", "## First\nx"), ["Head\n## First\nx"])

    def test_nearness_is_the_nearest_section_with_the_rest_of_the_page_beside_it(self):
        cosines = {1: (0.6, 0.6, 0.6), 2: (0.6, 0.1, 0.2), 3: (0.7, 0.0, 0.1)}  # nearest, second nearest, mean
        near = kb_rerank.nearness_of(cosines, 0.3)
        self.assertAlmostEqual(near[1], 0.6 + 0.3 * 1.2)  # one section: its cosine is each of the three
        self.assertAlmostEqual(near[2], 0.6 + 0.3 * 0.3)
        self.assertGreater(near[1], near[3])  # a page near throughout outweighs one a little nearer in one place
        self.assertEqual(kb_rerank.nearness_of(cosines, 0.0), {1: 0.6, 2: 0.6, 3: 0.7})


def table_exists(store, name):
    """Whether the store's database holds a table of this name (in the store's own schema on PostgreSQL)."""
    with store.database.read() as connection:
        if postgres_helpers.on_postgres():
            return connection.execute("SELECT to_regclass(?) IS NOT NULL", (name,)).fetchone()[0]
        return connection.execute("SELECT count(*) FROM sqlite_master WHERE name = ?", (name,)).fetchone()[0] == 1


class StubReranker:
    """Stands for kb_vectors.KeptVectors where numpy is missing: a page's nearness is given by its title."""

    def __init__(self, nearness):
        self.nearness, self.blend = nearness, 0.2  # the words' share these tests reckon with

    def vectors(self, connection, titles, texts):
        return dict(titles)

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
        self.assertEqual(kb_search.reranked(None, weighed, titles, texts, rerank), {2: -5.0, 3: -4.0, 1: -1.0})

    def test_a_near_tie_of_nearness_is_settled_by_the_words(self):
        weighed = {1: -5.0, 2: -1.0}
        texts = {number: kb_sections_text("") for number in weighed}
        rerank = kb_search.Rerank(StubReranker({"a": 0.50, "b": 0.55}), "q")
        self.assertEqual(kb_search.reranked(None, weighed, {1: "a", 2: "b"}, texts, rerank), {1: -5.0, 2: -1.0})


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
                           "the laptop battery runs longer between charges."))

    def search(self, store):
        return [r["title"] for r in store.call_tool("search_knowledge_base", {
            "knowledge_base_id": "kb_docs", "query": self.QUESTION})["results"]]

    def store(self, location=None, rerank=True):
        """A store of the two pages (saved with the re-ranker attached where `rerank`)."""
        store = kb_store.connect(location or postgres_helpers.default_location(), granted=["kb_docs"])
        self.addCleanup(store.close)
        if rerank:
            store.reranker = kb_vectors.attach(store, encoder())
        store.create_knowledge_base("kb_docs", "Docs")
        for title, content in self.PAGES:
            store.create_article("kb_docs", title, content)
        return store

    def location(self):
        """A database of the test's own: a new one on PostgreSQL where the suite runs there, else a file."""
        if postgres_helpers.on_postgres():
            return postgres_helpers.new_database()
        folder = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, folder)
        return os.path.join(folder, "kb.db")

    def saved_without_rerank(self, location):
        """The store at `location` as another process without --rerank opens it, having saved art-00001 anew."""
        plain = kb_store.connect(location, granted=["kb_docs"])
        self.addCleanup(plain.close)
        plain.save_article("kb_docs", "art-00001", content="## Battery\nThe battery lasts longer with a dim screen.")
        return plain

    def embedded(self):
        """The number of texts of each call of the model's embed from now on (the test's own list)."""
        calls = []
        reranker = encoder()
        embed = reranker.encoder.embed
        reranker.encoder.embed = lambda texts, most=kb_rerank.SECTION_TOKENS: calls.append(len(texts)) or embed(
            texts, most)
        self.addCleanup(setattr, reranker.encoder, "embed", embed)
        reranker.vectors.clear()
        return calls

    def kept(self, store):
        """The rows of the store's section vectors: article number -> (version, vectors)."""
        with store.database.read() as connection:
            return {number: (version, bytes(vectors)) for number, version, vectors in connection.execute(
                f"SELECT number, updated_at, vectors FROM {kb_vectors.KEPT}").fetchall()}

    def test_the_page_in_other_words_comes_first_only_with_the_reranker(self):
        store = self.store(rerank=False)
        self.assertEqual(self.search(store), ["Fast charging", "Power use"])
        store.reranker = kb_vectors.attach(store, encoder())
        self.assertEqual(self.search(store), ["Power use", "Fast charging"])

    def test_a_search_embeds_only_the_question_when_the_vectors_are_kept(self):
        store = self.store()
        calls = self.embedded()
        self.assertEqual(self.search(store), ["Power use", "Fast charging"])
        self.assertEqual(calls, [1])

    def test_each_page_saved_keeps_its_vectors_at_its_version(self):
        store = self.store()
        self.assertTrue(table_exists(store, kb_vectors.KEPT))
        kept = self.kept(store)
        with store.database.read() as connection:
            versions = dict(connection.execute("SELECT number, updated_at FROM articles").fetchall())
        self.assertEqual({number: version for number, (version, _) in kept.items()}, versions)
        self.assertEqual(len(kept[min(kept)][1]), 2 * kb_rerank.HIDDEN)  # one section, float16

    def test_an_edit_replaces_its_articles_vectors(self):
        store = self.store()
        before = self.kept(store)
        cited = store.call_tool("read_knowledge_article", {"knowledge_base_id": "kb_docs", "article_id": "art-00002"})
        store.call_tool("edit_knowledge_article", {
            "knowledge_base_id": "kb_docs", "article_id": "art-00002", "expected_version": cited["updated_at"],
            "content": "## Battery life\nDim the screen.\n## Sleep\nClose the lid.", "idempotency_key": "k1"})
        after = self.kept(store)
        edited = max(after)
        self.assertEqual(after[edited][0], store.article("kb_docs", "art-00002")["updated_at"])
        self.assertEqual(len(after[edited][1]), 2 * 2 * kb_rerank.HIDDEN)  # two sections now
        self.assertEqual(after[min(after)], before[min(before)])  # the other page's untouched
        calls = self.embedded()
        self.search(store)
        self.assertEqual(calls, [1])

    def test_no_save_runs_the_model_inside_its_write_and_a_preview_embeds_nothing(self):
        store = self.store()
        during = []
        reranker = store.reranker.reranker
        embed = reranker.encoder.embed
        reranker.encoder.embed = lambda texts, most=kb_rerank.SECTION_TOKENS: during.append(
            store.database.in_transaction) or embed(texts, most)
        self.addCleanup(setattr, reranker.encoder, "embed", embed)
        reranker.vectors.clear()
        cited = store.call_tool("read_knowledge_article", {"knowledge_base_id": "kb_docs", "article_id": "art-00001"})
        edit = {"knowledge_base_id": "kb_docs", "article_id": "art-00001", "expected_version": cited["updated_at"],
                "content": "## Charging\nUse the fast charger.", "idempotency_key": "k-preview"}
        before = self.kept(store)
        preview = store.preview("edit_knowledge_article", edit)
        self.assertIs(preview.answer["replay"], False)
        self.assertEqual((during, self.kept(store)), ([], before))  # nothing embedded, nothing kept
        store.call_tool("edit_knowledge_article", edit)
        store.save_article("kb_docs", "art-00002", title="Power use, and sleep")
        store.create_article("kb_docs", "Sleep", "## Sleep\nClose the lid.")
        self.assertEqual(during, [False, False, False])  # each page embedded once, after its write
        with store.database.write():  # a load of several pages in one transaction, as own content loads them
            store.create_article("kb_docs", "Lid", "## Lid\nClose it to sleep.")
            store.create_article("kb_docs", "Fan", "## Fan\nIt spins when hot.")
            self.assertEqual(len(during), 3)
        self.assertEqual(during, [False] * 5)  # both embedded once that transaction committed, outside it
        with store.database.read() as connection:
            self.assertEqual(len(self.kept(store)), connection.execute(
                "SELECT count(*) FROM articles WHERE status = 'published'").fetchone()[0])

    def test_a_model_that_fails_after_a_save_leaves_the_save_in_and_the_agent_answered(self):
        store = self.store()
        reranker = store.reranker.reranker
        embed = reranker.encoder.embed

        def failing(texts, most=kb_rerank.SECTION_TOKENS):
            raise MemoryError("the model could not run")
        reranker.encoder.embed = failing
        self.addCleanup(setattr, reranker.encoder, "embed", embed)
        reranker.vectors.clear()
        cited = store.call_tool("read_knowledge_article", {"knowledge_base_id": "kb_docs", "article_id": "art-00001"})
        with self.assertLogs("osfoundry", "ERROR"):
            answer = store.call_tool("edit_knowledge_article", {
                "knowledge_base_id": "kb_docs", "article_id": "art-00001", "expected_version": cited["updated_at"],
                "content": "## Charging\nUse the fast charger.", "idempotency_key": "k-failing"})
        self.assertNotIn("error", answer)
        self.assertEqual(store.article("kb_docs", "art-00001")["updated_at"], answer["citation"]["updated_at"])

    def test_an_unpublished_page_keeps_none_and_a_draft_gets_them_when_published(self):
        store = self.store()
        store.unpublish_article("kb_docs", "art-00001")
        self.assertEqual(len(self.kept(store)), 1)
        store.create_article("kb_docs", "Draft", "## Draft\nnot yet", published=False)
        self.assertEqual(len(self.kept(store)), 1)
        store.publish_article("kb_docs", "art-00003")
        self.assertEqual(len(self.kept(store)), 2)

    def test_pages_saved_without_rerank_are_filled_in_when_a_store_is_opened_with_it(self):
        location = self.location()
        self.store(location, rerank=False)
        again = kb_store.connect(location, granted=["kb_docs"])
        self.addCleanup(again.close)
        calls = self.embedded()
        again.reranker = kb_vectors.attach(again, encoder())
        self.assertEqual(sorted(calls), [1, 1])  # each page's one section, embedded once at opening
        del calls[:]
        self.assertEqual(self.search(again), ["Power use", "Fast charging"])
        self.assertEqual(calls, [1])

    def test_vectors_kept_in_an_earlier_form_are_dropped_and_embedded_again(self):
        location = self.location()
        store = self.store(location)
        with store.database.write() as connection:  # as a store kept by the first form of --rerank
            connection.execute(f"ALTER TABLE {kb_vectors.KEPT} RENAME TO {kb_vectors.FORMER[0]}")
        store.close()
        again = kb_store.connect(location, granted=["kb_docs"])
        self.addCleanup(again.close)
        calls = self.embedded()
        again.reranker = kb_vectors.attach(again, encoder())
        self.assertEqual(sorted(calls), [1, 1])
        self.assertFalse(table_exists(again, kb_vectors.FORMER[0]))
        self.assertEqual(len(self.kept(again)), 2)
        self.assertEqual(self.search(again), ["Power use", "Fast charging"])

    def test_vectors_of_a_version_no_longer_current_are_not_used(self):
        location = self.location()
        store = self.store(location)
        self.saved_without_rerank(location)
        calls = self.embedded()
        self.search(store)
        self.assertEqual(sorted(calls), [1, 1])  # the question, and the page saved without --rerank
        del calls[:]
        self.search(store)
        self.assertEqual(calls, [1])  # that page's vectors now remembered by the process

    def test_a_save_embeds_its_own_page_alone_however_many_others_lack_vectors(self):
        location = self.location()
        store = self.store(location)
        plain = self.saved_without_rerank(location)
        calls = self.embedded()
        store.create_article("kb_docs", "Sleep", "## Sleep\nClose the lid.")
        self.assertEqual(calls, [1])  # the new page; the one saved without --rerank waits for a search or a start
        with plain.database.read() as connection:
            versions = dict(connection.execute("SELECT number, updated_at FROM articles").fetchall())
        kept = self.kept(store)
        self.assertEqual(kept[3][0], versions[3])
        self.assertNotEqual(kept[1][0], versions[1])
        del calls[:]
        store.save_article("kb_docs", "art-00003", content="## Sleep\nClose the lid to sleep.")
        self.assertEqual(calls, [1])

    def test_a_read_only_store_without_the_table_reranks_with_vectors_it_computes(self):
        if postgres_helpers.on_postgres():
            self.skipTest("sqlite only: a read-only file")
        path = self.location()
        self.store(path, rerank=False).close()
        reading = kb_store.connect(path, granted=["kb_docs"], read_only=True)
        self.addCleanup(reading.close)
        reading.reranker = kb_vectors.attach(reading, encoder())
        self.assertFalse(reading.reranker.in_store)
        self.assertEqual(self.search(reading), ["Power use", "Fast charging"])
        self.assertFalse(table_exists(reading, kb_vectors.KEPT))

    def test_vectors_computed_at_search_time_are_computed_once_per_version(self):
        calls = self.embedded()
        encoder().section_vectors(("v", 1), "T", "## A\nx\n## B\ny")
        encoder().section_vectors(("v", 1), "T", "## A\nx\n## B\ny")
        self.assertEqual(calls, [2])


if __name__ == "__main__":
    unittest.main()
