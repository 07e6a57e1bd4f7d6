"""The layers: the product imports nothing from the experiments, the benchmark or the tests, and its arrows point down.

Read from the source (every import statement, wherever it stands, and every
importlib.import_module / __import__ of a constant name), like the clock test:
nothing is imported to check it.
"""

import ast
import os
import unittest
from typing import Iterator, Set

from tests.helpers import ROOT

# The product, lowest first: a module may import only modules of a lower rank (and the standard library).
PRODUCT_RANKS = {
    "minimum_python": 0, "cli": 0, "plumbing": 0, "word_stems": 0,
    "kb_sections": 1,
    "database": 1, "record_fields": 1, "mcp_tokens": 1, "http_front": 1, "http_workers": 1,
    "mcp_http": 2, "approval": 2,
    "postgres_database": 2,
    "engines": 3,
    "kb_store": 4, "record_store": 4,
    "workload": 5, "help_center": 5,
    "mcp_demo": 6, "content_files": 6,
    "mcp_server": 7,
}
ENTRY_SCRIPTS = {"sim", "triage", "bench"}  # the experiments' and the benchmark's commands at the top level
ABOVE_THE_PRODUCT = {"lab", "benchmark", "tests"} | ENTRY_SCRIPTS
# What each folder above the product may not import: the experiments know nothing of the benchmark or the tests.
FORBIDDEN_FROM_FOLDER = {"lab": {"benchmark", "tests", "bench"}, "benchmark": {"tests"}}


def imported_names(source: str) -> Iterator[str]:
    """The top-level module name of every import in `source`: statements anywhere, and dynamic imports of
    a constant string."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            yield from (alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            yield (node.module or "").split(".")[0] if node.level == 0 else "."
        elif isinstance(node, ast.Call) and _dynamic_import(node.func) and node.args \
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            yield node.args[0].value.split(".")[0]


def _dynamic_import(function: ast.expr) -> bool:
    return (isinstance(function, ast.Name) and function.id == "__import__") or \
        (isinstance(function, ast.Attribute) and function.attr == "import_module")


def project_modules() -> Set[str]:
    """The names the project's own code is imported by: the top-level modules and the packages."""
    names = {name[:-3] for name in os.listdir(ROOT) if name.endswith(".py")}
    return names | {name for name in os.listdir(ROOT) if os.path.isfile(os.path.join(ROOT, name, "__init__.py"))}


def imports_of(path: str) -> Set[str]:
    """The project modules the file at `path` imports."""
    with open(path, encoding="utf-8") as file:
        return set(imported_names(file.read())) & project_modules()


class ImportReaderTest(unittest.TestCase):
    """The reader finds every kind of import a module could use to reach above the product."""

    def test_it_finds_statements_inside_functions_from_imports_and_dynamic_imports(self):
        source = ("import os, lab.sim_day\nfrom benchmark import timing\n"
                  "def later():\n    import tests.helpers\n    importlib.import_module('sim')\n"
                  "    __import__('triage.x')\n    from . import sibling\n")
        self.assertEqual(set(imported_names(source)), {"os", "lab", "benchmark", "tests", "sim", "triage", "."})

    def test_the_project_modules_include_the_folders_and_the_entry_scripts(self):
        self.assertLessEqual({"lab", "benchmark", "tests", "sim", "triage", "bench", "kb_store"}, project_modules())


class LayerTest(unittest.TestCase):
    def test_every_top_level_module_is_either_product_or_an_entry_script(self):
        top = {name[:-3] for name in os.listdir(ROOT) if name.endswith(".py")}
        self.assertEqual(top - set(PRODUCT_RANKS) - ENTRY_SCRIPTS, set(), "classify the new module in this test")
        self.assertEqual(set(PRODUCT_RANKS) - top, set())

    def test_the_product_imports_nothing_from_the_experiments_the_benchmark_or_the_tests(self):
        for module in PRODUCT_RANKS:
            with self.subTest(module=module):
                self.assertEqual(imports_of(os.path.join(ROOT, f"{module}.py")) & ABOVE_THE_PRODUCT, set())

    def test_within_the_product_every_import_points_down(self):
        for module, rank in PRODUCT_RANKS.items():
            for imported in imports_of(os.path.join(ROOT, f"{module}.py")) & set(PRODUCT_RANKS):
                with self.subTest(module=module, imported=imported):
                    self.assertLess(PRODUCT_RANKS[imported], rank)

    def test_the_experiments_know_nothing_of_the_benchmark_and_neither_of_the_tests(self):
        for folder, forbidden in FORBIDDEN_FROM_FOLDER.items():
            for name in sorted(os.listdir(os.path.join(ROOT, folder))):
                if name.endswith(".py"):
                    with self.subTest(module=f"{folder}/{name}"):
                        self.assertEqual(imports_of(os.path.join(ROOT, folder, name)) & forbidden, set())


if __name__ == "__main__":
    unittest.main()
