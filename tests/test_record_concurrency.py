"""Several processes on one record-store file: the shared concurrency cases, editing one item's title."""

import unittest

from tests import record_helpers
from tests.concurrency_cases import ConcurrencyCases
from tests.store_worker import RecordSide


class RecordConcurrencyTest(ConcurrencyCases, unittest.TestCase):
    KIND, SIDE, VERSION_KEY = "record", RecordSide, "version"

    def make_store(self, path):
        store, _, ids = record_helpers.bug_store(path)
        return store, ids[0]

    def events(self, store, after=0):
        return record_helpers.events(store, after=after)


if __name__ == "__main__":
    unittest.main()
