"""The examples in the modules' docstrings run and print what they show: every module of the project that has one."""

import doctest
import importlib
import os
import unittest

from tests.helpers import ROOT

FOLDERS = ("", "osfoundry_tools", "lab", "benchmark")  # the top level and the packages of the project's own code
WALKED = ("osfoundry_tools", "lab")  # folders searched with their subfolders (the product's layers, lab/'s experiments)


def module_files():
    """(folder, file name) of every module the search looks at, folders relative to the root."""
    for folder in FOLDERS:
        if folder not in WALKED:
            yield from ((folder, name) for name in sorted(os.listdir(os.path.join(ROOT, folder))))
            continue
        for where, folders, names in sorted(os.walk(os.path.join(ROOT, folder))):
            folders[:] = sorted(name for name in folders if name != "__pycache__")
            yield from ((os.path.relpath(where, ROOT), name) for name in sorted(names))


def modules_with_examples():
    """The import names of the project's modules whose source holds a docstring example."""
    for folder, name in module_files():
        if name.endswith(".py") and name != "__init__.py":
            with open(os.path.join(ROOT, folder, name), encoding="utf-8") as source:
                if ">>> " in source.read():
                    yield ".".join(filter(None, (*folder.split(os.sep), name[:-3])))


def load_tests(loader, tests, ignore):
    for name in modules_with_examples():
        tests.addTests(doctest.DocTestSuite(importlib.import_module(name)))
    return tests


class ExamplesFoundTest(unittest.TestCase):
    def test_the_examples_of_the_stores_the_core_the_experiments_and_the_benchmark_are_found(self):
        self.assertLessEqual({"kb_store", "record_store", "osfoundry_tools.stores.kb_store",
                              "osfoundry_tools.stores.record_fields", "osfoundry_tools.stores.record_store",
                              "osfoundry_tools.content.workload", "osfoundry_tools.cli", "osfoundry_tools.core.checks",
                              "osfoundry_tools.core.clock", "lab.experiments", "benchmark.timing"},
                             set(modules_with_examples()))
