"""An article's sections as a search reads them (kb_sections), and the stems they are read with (word_stems).

The stems are Porter's: the paper's own examples are checked one by one. A query word's forms are found by the
stem's beginning, not by stemming a whole vocabulary; that shortcut is checked against stemming every word of
every committed documentation set. Nearness counts different query words a few words apart, and nothing else. The
work a content can cost is bounded (characters read, headings split at, places read for nearness, texts kept), and
a store that has kept an article's text reads it again once the article is saved.
"""

import glob
import math
import os
import re
import unittest

from tests.helpers import ROOT
from tests.postgres_helpers import default_location
from osfoundry_tools.stores import kb_sections
from osfoundry_tools.stores import kb_store
from osfoundry_tools.stores.word_stems import stem

# Porter (1980), the examples the paper gives for its steps, each with the stem the whole algorithm makes of it.
PORTER_EXAMPLES = """
    caresses caress  ponies poni  ties ti  caress caress  cats cat  feed feed  agreed agre  plastered plaster
    bled bled  motoring motor  sing sing  conflated conflat  troubled troubl  sized size  hopping hop  tanned tan
    falling fall  hissing hiss  fizzed fizz  failing fail  filing file  happy happi  sky sky  relational relat
    conditional condit  rational ration  valenci valenc  hesitanci hesit  digitizer digit  conformabli conform
    radicalli radic  differentli differ  vileli vile  analogousli analog  vietnamization vietnam  predication predic
    operator oper  feudalism feudal  decisiveness decis  hopefulness hope  callousness callous  formaliti formal
    sensitiviti sensit  sensibiliti sensibl  triplicate triplic  formative form  formalize formal  electriciti electr
    electrical electr  hopeful hope  goodness good  revival reviv  allowance allow  inference infer  airliner airlin
    gyroscopic gyroscop  adjustable adjust  defensible defens  irritant irrit  replacement replac  adjustment adjust
    dependent depend  adoption adopt  communism commun  activate activ  angulariti angular  homologous homolog
    effective effect  bowdlerize bowdler  probate probat  rate rate  cease ceas  controll control  roll roll
    generalizations gener  oscillators oscil
""".split()


def _intro(characters: int) -> str:
    """A section "Intro" of `characters` characters, its line ending included."""
    return "## Intro\n" + ("lorem ipsum dolor sit amet " * 2000)[:characters - len("## Intro\n") - 1] + "\n"


HEADING = "## Proxyserver settings"
CUT_SHORT = _intro(kb_sections.SECTION_READ - 18) + HEADING  # the characters a search reads end inside the heading
WHOLE_AT_THE_CUT = _intro(kb_sections.SECTION_READ - len(HEADING)) + HEADING + "\nx"  # they end with its last letter
TITLE = 'See [the notes](notes.md "Proxy notes\n' + HEADING + '\n'  # a link's title over lines, a heading's line in it
TITLE_OPEN_AT_THE_CUT = (_intro(kb_sections.SECTION_READ - len(TITLE) - 5) + TITLE + "more of the title\")\n"
                         "Set the proxyserver.\n")  # the characters a search reads end inside the title


class StemTest(unittest.TestCase):
    def test_every_example_of_the_paper_gets_its_stem(self):
        pairs = list(zip(PORTER_EXAMPLES[::2], PORTER_EXAMPLES[1::2]))
        self.assertEqual(len(pairs), 76)
        self.assertEqual([(word, stem(word)) for word, _ in pairs], pairs)

    def test_short_words_and_words_with_digits_are_their_own_stems(self):
        self.assertEqual([stem(word) for word in ("is", "a", "http2", "v1")], ["is", "a", "http2", "v1"])


def committed_vocabulary():
    """Every distinct lower-case word of every committed documentation set's pages."""
    words = set()
    for path in glob.glob(os.path.join(ROOT, "benchmark", "search_sets", "*", "pages", "**", "*.md"), recursive=True):
        with open(path, encoding="utf-8") as page:
            words.update(re.findall(r"\w+", page.read().lower()))
    return sorted(words)


class FormsTest(unittest.TestCase):
    def test_the_forms_found_by_a_stems_beginning_are_every_word_of_that_stem(self):
        vocabulary = committed_vocabulary()
        self.assertGreater(len(vocabulary), 5000)
        by_stem = {}
        for word in vocabulary:
            by_stem.setdefault(stem(word), []).append(word)
        for word_stem, words in by_stem.items():
            with self.subTest(word_stem):
                self.assertEqual(kb_sections.forms(vocabulary, word_stem), words)

    def test_a_stem_no_word_has_finds_nothing(self):
        self.assertEqual(kb_sections.forms(("proxy", "timeout"), "zzz"), [])


def nearness_of(text, weights):
    """The nearness of `weights`' words (already stems) in `text`."""
    places = kb_sections.word_places(text)
    found = {word_stem: kb_sections.forms(tuple(sorted(places)), word_stem) for word_stem in weights}
    return kb_sections.nearness(places, weights, found)


class NearnessTest(unittest.TestCase):
    WEIGHTS = {"frozen": 2.0, "field": 1.0}

    def test_two_different_query_words_count_the_lesser_weight_over_their_distance_squared(self):
        self.assertEqual(nearness_of("frozen field", self.WEIGHTS), 1.0)
        self.assertEqual(nearness_of("frozen a b field", self.WEIGHTS), 1.0 / 9)
        self.assertEqual(nearness_of("a frozen b field c frozen", self.WEIGHTS), 2 * 1.0 / 4)
        self.assertEqual(nearness_of("field frozen field", self.WEIGHTS), 2 * 1.0)  # each two near count

    def test_words_farther_apart_than_near_and_one_word_repeated_count_nothing(self):
        self.assertGreater(nearness_of("frozen " + "x " * (kb_sections.NEAR - 1) + "fields", self.WEIGHTS), 0)
        self.assertEqual(nearness_of("frozen " + "x " * kb_sections.NEAR + "fields", self.WEIGHTS), 0.0)
        self.assertEqual(nearness_of("frozen frozen frozen", self.WEIGHTS), 0.0)
        self.assertEqual(nearness_of("fields field fields", self.WEIGHTS), 0.0)

    def test_a_text_that_holds_its_words_near_ranks_above_one_that_scatters_them(self):
        texts = {1: kb_sections.article_text("# Models\nA frozen field cannot change.\n" + "other words " * 40),
                 2: kb_sections.article_text("# Models\nA frozen thing.\n" + "other words " * 40 + "\nA field.")}
        scores = kb_sections.text_scores(texts, self.WEIGHTS)
        self.assertGreater(scores[1].nearness, 0.0)
        self.assertEqual(scores[2].nearness, 0.0)


class SectionWeightsTest(unittest.TestCase):
    """A query word's weight taken in part from how rare it is among the sections of the matches weighed."""

    TEXTS = {1: kb_sections.article_text("# Primary colour\nSet it.\n# Accent colour\nSet it.\n# Text colour\nSet."),
             2: kb_sections.article_text("# Buttons\nA label.\n# Admonitions\nAn admonition takes a colour.")}

    def weighed(self, weights, rarity):
        return kb_sections.section_weights(self.TEXTS, weights, kb_sections.held_forms(self.TEXTS, weights), rarity)

    def test_a_word_few_sections_hold_outweighs_one_most_sections_hold_whatever_the_articles_say(self):
        weights = self.weighed({"colour": 2.0, "admonitions": 1.0}, 1.0)  # colour: 4 of 5 sections; admonition: 1
        self.assertGreater(weights["admonitions"], 2 * weights["colour"])
        self.assertGreater(weights["colour"], 0.0)  # a word every section holds still counts a little

    def test_the_share_of_the_sections_rarity_is_the_rarity_asked_and_the_rest_the_articles(self):
        articles = {"colour": 2.0, "admonitions": 1.0}
        self.assertEqual(self.weighed(articles, 0.0), articles)
        sections = self.weighed(articles, 1.0)
        blended = self.weighed(articles, 0.75)
        for word, weight in articles.items():
            self.assertAlmostEqual(blended[word], 0.75 * sections[word] + 0.25 * weight)

    def test_a_section_holds_a_word_once_by_any_of_its_forms_in_its_heading_or_its_text(self):
        text = kb_sections.article_text("# Proxies\nA proxy, proxied.\n# Other\nNothing.\n# Proxy\nx")
        self.assertEqual((text.holding["proxies"], text.holding["proxy"], text.holding["nothing"]), (0b1, 0b101, 0b10))
        held = kb_sections.section_weights({1: text}, {"proxy": 1.0}, kb_sections.held_forms({1: text}, ["proxy"]), 1.0)
        self.assertAlmostEqual(held["proxy"], math.log(1 + (3 - 2 + 0.5) / (2 + 0.5)))  # 2 of 3 sections


class BoundsTest(unittest.TestCase):
    def test_nearness_reads_each_words_first_places_only_its_share_of_near_read(self):
        weights, share = {"frozen": 2.0, "field": 1.0}, kb_sections.NEAR_READ // 2  # two words share the places
        last_read = "frozen " * (share - 1) + "x " * kb_sections.NEAR + "frozen field"  # its last place read
        self.assertGreater(nearness_of(last_read, weights), 0.0)
        self.assertEqual(nearness_of("frozen " + last_read, weights), 0.0)  # one place later: not read

    def test_nearness_reads_the_weightiest_words_only(self):
        words = [f"w{number}" for number in range(kb_sections.NEAR_WORDS + 1)]
        weights = {word: 10.0 - number for number, word in enumerate(words)}  # the last word is the lightest
        apart = (" " + "x " * kb_sections.NEAR).join(words)  # every word held, none near another
        self.assertEqual(nearness_of(apart + " w0 " + words[-2], weights), weights[words[-2]])  # the lesser weight
        self.assertEqual(nearness_of(apart + " w0 " + words[-1], weights), 0.0)  # the lightest is not read

    def test_a_content_is_split_at_its_first_headings_only(self):
        text = kb_sections.article_text("## a heading\nwords\n" * 1000)
        self.assertEqual(len(text.sections), kb_sections.SECTIONS_KEPT)  # nothing before the first; the last holds
        # the rest as its text
        self.assertEqual(text.sections[-1].heading, {"a": 1, "heading": 1})
        self.assertGreater(text.sections[-1].text["heading"], 100)

    def test_a_results_headings_are_walked_to_the_one_after_it_and_no_further(self):
        content = "".join(f"## aa\nline {number}\n" for number in range(5000))  # thousands of headings, all alike
        walked = []
        headings = kb_sections.markdown_headings

        def counted(lines):
            for heading in headings(lines):
                walked.append(heading)
                yield heading
        kb_sections.markdown_headings = counted
        try:
            self.assertEqual(kb_sections.answering_part(content, "aa-2"), "## aa\nline 2\n")
            self.assertEqual(len(walked), 4)  # three sections, and the heading after them
            del walked[:]
            last = f"aa-{kb_sections.SECTIONS_KEPT - 1}"  # the last a search can name (article_text's sections)
            self.assertEqual(kb_sections.answering_part(content, last),
                             f"## aa\nline {kb_sections.SECTIONS_KEPT - 1}\n")
            self.assertEqual(kb_sections.answering_part(content, f"aa-{kb_sections.SECTIONS_KEPT}"), "")
            self.assertLessEqual(len(walked), 2 * (kb_sections.SECTIONS_KEPT + 1))  # one heading more than named
        finally:
            kb_sections.markdown_headings = headings
        named = kb_sections.article_text(content).anchors
        self.assertEqual((named[0], named[-1]), ("aa", last))

    def test_a_sections_place_kept_with_its_text_quotes_what_reading_its_headings_again_would(self):
        contents = {
            "repeated headings": "Intro\n# A\na\n## B\nb\n# A\nagain\n# A-1\nlast",
            "fenced code": "# Run\n```sh\n# not a heading\n```\nafter\n## Next\n",
            "a trailing line ending": "# Only\ntext\n",
            "a heading with nothing under it": "# Empty\n# Full\ntext",
            "one heading more than kept": "".join(f"## aa\nline {n}\n" for n in range(kb_sections.SECTIONS_KEPT + 5)),
            "a link and an address in headings": "## See [the guide](guide.md)\nx\n## https://example.com Setup\ny",
            "headings past the characters read": "# Start\n" + "word " * (kb_sections.SECTION_READ // 5) + "\n# Late",
            "lines ending in CR LF": "# A\r\ntext\r\n## B\r\nmore\r\n",
            "a link whose title spans lines": '# A\nSee [x](y "a title\nover two lines").\n# B\nb\n# A\nc',
            "a heading inside such a title": 'x [l](p.md "t\n## Proxy\n")\n## Proxy\nset\n## Proxy\nagain',
            "a heading the characters read cut short": CUT_SHORT,
            "a heading that ends where the characters read end": WHOLE_AT_THE_CUT,
        }
        for kind, content in contents.items():
            with self.subTest(kind):
                opening = content[:kb_sections.OPENING_READ]  # what a search reads of a content
                text = kb_sections.article_text(content)
                self.assertIsNotNone(text.parts)
                self.assertTrue(set(text.anchors) - {""} <= set(text.parts))
                for name in text.parts:
                    answering = kb_sections.Answering.of(text, name)
                    self.assertIsNotNone(answering.span)
                    self.assertEqual(answering.text(opening), kb_sections.answering_part(opening, name))

    def test_a_heading_the_characters_read_cut_short_is_text_and_one_they_hold_whole_is_a_heading(self):
        for content, named in ((CUT_SHORT, "intro"), (WHOLE_AT_THE_CUT, "proxyserver-settings")):
            with self.subTest(named):
                text = kb_sections.article_text(content[:kb_sections.OPENING_READ])
                self.assertEqual(text.anchors[-1], named)
                readable = {part.anchor for part in kb_sections.content_parts(content)}
                self.assertTrue(set(text.anchors) - {""} <= readable)

    def test_a_line_of_a_links_title_the_cut_leaves_open_is_text(self):
        text = kb_sections.article_text(TITLE_OPEN_AT_THE_CUT[:kb_sections.OPENING_READ])
        self.assertEqual(text.anchors[-1], "intro")  # not "proxyserver-settings": the rest closes the title
        self.assertEqual([part.anchor for part in kb_sections.content_parts(TITLE_OPEN_AT_THE_CUT)], ["intro"])
        closed_before = TITLE_OPEN_AT_THE_CUT.replace('"Proxy notes\n', '"Proxy notes")\n', 1)
        self.assertEqual(kb_sections.article_text(closed_before[:kb_sections.OPENING_READ]).anchors[-1],
                         "proxyserver-settings")  # a title closed before the cut hides nothing

    def test_a_links_target_holding_an_address_is_unfinished_at_the_cut_all_the_same(self):
        link = 'See [x](https://example.com/O\'Reilly "a title\n' + HEADING + "\n"  # the address stops at the '
        content = _intro(kb_sections.SECTION_READ - len(link) - 5) + link + 'more")\nSet the proxyserver.\n'
        self.assertEqual(kb_sections.article_text(content[:kb_sections.OPENING_READ]).anchors[-1], "intro")
        self.assertEqual([part.anchor for part in kb_sections.content_parts(content)], ["intro"])

    def test_a_link_whose_title_spans_lines_hides_a_heading_alike_from_a_search_and_a_read(self):
        content = 'Intro [l](p.md "t\n## Proxy\n")\n## Proxy\nset the proxy here'  # the first "## Proxy" is title
        text = kb_sections.article_text(content)
        self.assertEqual(text.anchors, ("", "proxy"))
        answering = kb_sections.Answering.of(text, "proxy")
        self.assertEqual(answering.text(content), "## Proxy\nset the proxy here")
        self.assertEqual(kb_sections.answering_part(content, "proxy"), "## Proxy\nset the proxy here")
        (part,) = kb_sections.content_parts(content)
        self.assertEqual((part.anchor, content[part.start:part.end]), ("proxy", "## Proxy\nset the proxy here"))

    def test_only_the_first_characters_of_a_content_are_read(self):
        content = "# Start\n" + "word " * (kb_sections.SECTION_READ // 5) + "farewell"
        self.assertNotIn("farewell", kb_sections.article_text(content).whole.text)
        self.assertIn("farewell", kb_sections.article_text(content[-1000:]).whole.text)

    def test_fenced_code_is_text_of_its_section_and_links_are_no_words(self):
        text = kb_sections.article_text("# Proxies\n```sh\n# a comment\n```\nSee [docs](https://example.com/x).")
        self.assertEqual(len(text.sections), 1)
        self.assertEqual(text.sections[0].text, {"sh": 1, "a": 1, "comment": 1, "see": 1, "docs": 1})

    def test_the_texts_kept_are_the_most_recently_used_and_no_more(self):
        texts = kb_sections.ArticleTexts()
        for number in range(kb_sections.TEXTS_KEPT):
            texts.put((number, "v1"), kb_sections.article_text(f"# {number}"))
        self.assertIsNotNone(texts.get((0, "v1")))  # used: kept over the next oldest
        texts.put(("new", "v1"), kb_sections.article_text("# new"))
        self.assertIsNotNone(texts.get((0, "v1")))
        self.assertIsNone(texts.get((1, "v1")))
        self.assertEqual(sum(texts.get((number, "v1")) is not None for number in range(kb_sections.TEXTS_KEPT)),
                         kb_sections.TEXTS_KEPT - 1)


class CutHeadingTest(unittest.TestCase):
    def test_every_section_a_search_names_of_a_long_page_can_be_read(self):
        for content in (CUT_SHORT + " and timeouts\nSet the proxyserver.\n", TITLE_OPEN_AT_THE_CUT):
            with self.subTest(content[-60:]):
                store = kb_store.connect(default_location())
                self.addCleanup(store.close)
                store.create_knowledge_base("kb-docs", "Docs")
                long_page = store.create_article("kb-docs", "Big page", content)
                for filler in ("Install", "Search", "Blog"):
                    store.create_article("kb-docs", filler, f"## {filler}\n\nWords about {filler.lower()}.")
                found = store.call_tool("search_knowledge_base", {"knowledge_base_id": "kb-docs",
                                                                  "query": "proxyserver settings"})
                result = next(r for r in found["results"] if r["article_id"] == long_page["article_id"])
                self.assertEqual(result["section"], "intro")  # not half the heading's words, nor a title's line
                read = store.call_tool("read_knowledge_article", {"knowledge_base_id": "kb-docs",
                                                                  "section": result["section"],
                                                                  "article_id": long_page["article_id"]})
                self.assertNotIn("error", read)
                self.assertTrue(read["content"].startswith("## Intro\n"))


class SavedTextTest(unittest.TestCase):
    """A store keeps the texts its searches read by article version; a save makes a new version, read anew."""

    def test_a_search_after_a_save_weighs_the_saved_text(self):
        store = kb_store.connect(default_location())
        self.addCleanup(store.close)
        store.create_knowledge_base("kb-docs", "Docs")
        store.create_article("kb-docs", "Guide", "## Proxy timeout\n\nSet it once.", article_id="a-0")
        store.create_article("kb-docs", "Other", "## Fonts\n\nPick one. A proxy exists.", article_id="a-1")
        for filler in ("Install", "Search", "Blog"):
            store.create_article("kb-docs", filler, f"## {filler}\n\nWords about {filler.lower()}.")
        self.assertEqual(self.first_found(store), "a-0")
        store.save_article("kb-docs", "a-0", content="## Fonts\n\nPick one. A proxy exists.")  # the two swapped
        store.save_article("kb-docs", "a-1", content="## Proxy timeout\n\nSet it once.")
        self.assertEqual(self.first_found(store), "a-1")

    def test_a_results_section_is_quoted_without_walking_its_pages_headings_again(self):
        store = kb_store.connect(default_location())
        self.addCleanup(store.close)
        store.create_knowledge_base("kb-docs", "Docs")
        headings = "".join(f"## Topic {n}\n\nWords about topic {n}.\n" for n in range(50))
        store.create_article("kb-docs", "Guide", headings + "## Proxy timeout\n\nSet the proxy timeout once.\n")
        for filler in ("Install", "Search", "Blog"):
            store.create_article("kb-docs", filler, f"## {filler}\n\nWords about {filler.lower()}.")
        walked = []
        walk = kb_sections.answering_part
        kb_sections.answering_part = lambda content, name: walked.append(name) or walk(content, name)
        try:
            first = store.call_tool("search_knowledge_base", {"knowledge_base_id": "kb-docs",
                                                              "query": "proxy timeout"})["results"][0]
        finally:
            kb_sections.answering_part = walk
        self.assertEqual((first["section"], walked), ("proxy-timeout", []))
        self.assertIn("Set the proxy timeout once.", first["snippet"])

    @staticmethod
    def first_found(store):
        answer = store.call_tool("search_knowledge_base", {"knowledge_base_id": "kb-docs", "query": "proxy timeout"})
        return answer["results"][0]["article_id"]


if __name__ == "__main__":
    unittest.main()
