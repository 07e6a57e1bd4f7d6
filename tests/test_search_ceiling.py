"""The ceiling of the default ranking (benchmark/search_ceiling.py) rests on parts recorded as the search weighs.

Its figures are only worth reading if the parts it records are the search's own: the committed weights over them
must order every question as the served search does, and recording must leave the search as it was.
"""

import unittest

from benchmark import search_ceiling, search_tuning
from benchmark.search_quality import question_sets, served
from osfoundry_tools.server import methods
from osfoundry_tools.stores import kb_search

SET = "httpx"  # a small committed set: 28 questions


class RecordedPartsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.question_set = next(found for found in question_sets() if found.name == SET)
        cls.recorded = search_ceiling.record(cls.question_set)
        workspace = served(cls.question_set, ":memory:")
        try:
            cls.served_ranks = search_tuning.ranks(cls.question_set,
                                                   search_tuning.deep_asker(methods.Server(workspace.tools())))
        finally:
            workspace.close()

    def test_the_committed_weights_over_the_recorded_parts_order_as_the_served_search(self):
        ranks = [search_ceiling.rank(search_ceiling.scores_of(asked, search_ceiling.committed()), asked.answers)
                 for asked in self.recorded]
        self.assertEqual(ranks, self.served_ranks)
        self.assertGreater(sum(got == 1 for got in ranks), len(ranks) // 2)

    def test_every_question_is_recorded_with_every_part_of_every_weighed_match(self):
        self.assertEqual(len(self.recorded), len(self.question_set.questions))
        names = set(search_ceiling.parts_named(self.recorded))
        self.assertLessEqual(set(search_ceiling.committed()) | set(search_ceiling.before()), names)
        for asked in self.recorded:
            self.assertEqual(len(asked.parts), len(asked.answers))
            self.assertTrue(all(set(parts) == names for parts in asked.parts))

    def test_recording_leaves_the_search_as_it_was(self):
        weigh = kb_search.weighed_scores
        with search_ceiling.recording({"question": ""}):
            self.assertIsNot(kb_search.weighed_scores, weigh)
        self.assertIs(kb_search.weighed_scores, weigh)

    def test_a_part_weighed_to_answer_puts_the_answer_first_and_the_figures_count_it(self):
        answering = [search_ceiling.Asked("s", tuple({"x": float(answer)} for answer in asked.answers), asked.answers)
                     for asked in self.recorded if any(asked.answers)]
        weights, got = search_ceiling.ascend(answering, {}, ["x"])
        self.assertGreater(weights["x"], 0)
        self.assertEqual(got[:2], (len(answering), len(answering)))


if __name__ == "__main__":
    unittest.main()
