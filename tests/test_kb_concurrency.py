"""Several processes on one knowledge-base file: the shared concurrency cases, editing one article."""

import unittest

from tests.concurrency_cases import ConcurrencyCases
from tests.helpers import poll_all, support_store
from tests.store_worker import KnowledgeBaseSide


class KnowledgeBaseConcurrencyTest(ConcurrencyCases, unittest.TestCase):
    KIND, SIDE, VERSION_KEY = "kb", KnowledgeBaseSide, "updated_at"

    def make_store(self, path):
        store, _, ids = support_store(path)
        return store, ids[0]

    def events(self, store, after=0):
        return poll_all(store, after=after)


if __name__ == "__main__":
    unittest.main()
