"""The layers: the package's folders rank from the server down to the engines and the core, every import points down,
the product imports nothing above it, and the core and the engines name no store's subject.

Read from the source (every import statement, wherever it stands, and every importlib.import_module /
__import__ of a constant name), like the clock test: nothing is imported to check it. An import inside
`if TYPE_CHECKING:` is an annotation's, never run, and is left out.
"""

import ast
import os
import re
import unittest
from typing import Dict, Iterator, List, Set

from tests.helpers import ROOT

PACKAGE = "osfoundry_tools"
# The layers, lowest first: a module may import modules of its own layer or of a lower one, never a higher one.
LAYERS = ["base", "core", "engines", "stores", "content", "server", "experiments", "commands"]
BASE = {"osfoundry_tools", "osfoundry_tools.cli", "osfoundry_tools.minimum_python"}
PACKAGE_COMMAND = "osfoundry_tools.__main__"  # python3 -m osfoundry_tools: the server's command, in its layer
COMMANDS = {"sim", "triage", "bench", "mcp_server", "kb_store", "record_store"}  # the root's modules, and no more
ABOVE_THE_PRODUCT = ("lab", "benchmark", "tests")
SUBJECT_NAMES = re.compile(r"article|knowledge|channel|(?<![a-z])item", re.IGNORECASE)  # the stores' subjects, named
SUBJECT_TEXT = re.compile(r"article|knowledge|channel|\bitem_id\b|\b(from|into|update|join|table) items\b",
                          re.IGNORECASE)  # ... and in a statement or a message ("items" alone is JSON Schema's)


def layer_of(module: str) -> str:
    """The layer of a module of the project, by its dotted name."""
    if module in BASE:
        return "base"
    if module == PACKAGE_COMMAND:
        return "server"
    parts = module.split(".")
    if parts[0] == PACKAGE:
        return parts[1]
    if parts[0] in ("lab", "benchmark"):
        return "experiments"
    if parts[0] == "tests":
        return "tests"
    return "commands"


def imported_names(source: str) -> Iterator[str]:
    """The dotted name of every module `source` imports (for `from a import b`, both a and a.b, since b may be a
    module): statements anywhere but under `if TYPE_CHECKING:`, and dynamic imports of a constant string."""
    tree = ast.parse(source)
    checked_only = {id(node) for statement in ast.walk(tree) if _type_checking(statement)
                    for node in ast.walk(statement)}
    for node in ast.walk(tree):
        if id(node) in checked_only:
            continue
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = (node.module or "") if node.level == 0 else "." * node.level + (node.module or "")
            yield module
            yield from (f"{module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Call) and _dynamic_import(node.func) and node.args \
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            yield node.args[0].value


def _type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def _dynamic_import(function: ast.expr) -> bool:
    return (isinstance(function, ast.Name) and function.id == "__import__") or \
        (isinstance(function, ast.Attribute) and function.attr == "import_module")


def project_files() -> Dict[str, str]:
    """Every module of the project but the tests: dotted name -> path."""
    found = {name[:-3]: os.path.join(ROOT, name) for name in os.listdir(ROOT) if name.endswith(".py")}
    for folder in (PACKAGE, "lab", "benchmark"):
        for where, folders, names in os.walk(os.path.join(ROOT, folder)):
            folders[:] = [name for name in folders if name != "__pycache__"]
            for name in names:
                if name.endswith(".py"):
                    path = os.path.join(where, name)
                    dotted = os.path.relpath(path, ROOT)[:-3].replace(os.sep, ".")
                    found[dotted[:-len(".__init__")] if dotted.endswith(".__init__") else dotted] = path
    return found


def imports_of(path: str, modules: Set[str]) -> Set[str]:
    """The project modules (of `modules`) the file at `path` imports, a package's own __init__ left out."""
    with open(path, encoding="utf-8") as file:
        names = set(imported_names(file.read()))
    return {name for name in names if name in modules}


def product_modules() -> Dict[str, str]:
    return {name: path for name, path in project_files().items() if name.split(".")[0] == PACKAGE}


class ImportReaderTest(unittest.TestCase):
    """The reader finds every kind of import a module could use to reach above its layer."""

    def test_it_finds_statements_inside_functions_from_imports_and_dynamic_imports(self):
        source = ("import os, lab.knowledge_base.day\nfrom benchmark import timing\n"
                  "def later():\n    import tests.helpers\n    importlib.import_module('sim')\n"
                  "    __import__('triage.x')\n    from . import sibling\n")
        self.assertLessEqual({"os", "lab.knowledge_base.day", "benchmark", "benchmark.timing", "tests.helpers", "sim",
                              "triage.x", "."}, set(imported_names(source)))

    def test_an_import_for_annotations_only_is_left_out(self):
        source = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from osfoundry_tools.server import stdio\n"
        self.assertNotIn("osfoundry_tools.server", set(imported_names(source)))

    def test_every_module_has_a_layer_and_the_layers_are_the_packages_folders(self):
        folders = {name for name in os.listdir(os.path.join(ROOT, PACKAGE))
                   if os.path.isfile(os.path.join(ROOT, PACKAGE, name, "__init__.py"))}
        self.assertEqual(folders, set(LAYERS) - {"base", "experiments", "commands"})
        for module in project_files():
            with self.subTest(module=module):
                self.assertIn(layer_of(module), LAYERS)


class LayerTest(unittest.TestCase):
    def test_the_root_holds_the_commands_and_the_stores_names_and_no_other_module(self):
        top = {name[:-3] for name in os.listdir(ROOT) if name.endswith(".py")}
        self.assertEqual(top, COMMANDS)

    def test_every_import_points_down_or_stays_in_its_layer(self):
        files = project_files()
        for module, path in sorted(files.items()):
            rank = LAYERS.index(layer_of(module))
            for imported in imports_of(path, set(files)):
                with self.subTest(module=module, imported=imported):
                    self.assertLessEqual(LAYERS.index(layer_of(imported)), rank)

    def test_the_product_imports_nothing_from_the_experiments_the_benchmark_the_tests_or_the_root(self):
        for module, path in sorted(product_modules().items()):
            with open(path, encoding="utf-8") as file:
                tops = {name.split(".")[0] for name in imported_names(file.read())}
            with self.subTest(module=module):
                self.assertEqual(tops & (set(ABOVE_THE_PRODUCT) | COMMANDS), set())

    def test_the_experiments_know_nothing_of_the_benchmark_and_neither_imports_a_command_or_a_test(self):
        forbidden = {"lab": {"benchmark", "tests"} | COMMANDS, "benchmark": {"tests"} | COMMANDS}
        for module, path in sorted(project_files().items()):
            folder = module.split(".")[0]
            if folder not in forbidden:
                continue
            with open(path, encoding="utf-8") as file:
                tops = {name.split(".")[0] for name in imported_names(file.read())}
            with self.subTest(module=module):
                self.assertEqual(tops & forbidden[folder], set())

    def test_no_two_modules_of_the_product_import_each_other_round_a_circle(self):
        modules = product_modules()
        graph = {module: imports_of(path, set(modules)) - {module} for module, path in modules.items()}
        for module in graph:
            with self.subTest(module=module):
                self.assertEqual(circle_from(module, graph), [])


def circle_from(start: str, graph: Dict[str, Set[str]]) -> List[str]:
    """A path of imports from `start` back to itself, or [] where there is none."""
    stack, seen = [(start, [start])], set()
    while stack:
        module, path = stack.pop()
        for imported in sorted(graph.get(module, ())):
            if imported == start:
                return path + [start]
            if imported not in seen:
                seen.add(imported)
                stack.append((imported, path + [imported]))
    return []


class SubjectsTest(unittest.TestCase):
    def test_the_core_and_the_engines_name_no_article_item_knowledge_base_or_channel_in_their_code(self):
        for module, path in sorted(product_modules().items()):
            if layer_of(module) not in ("core", "engines"):
                continue
            with open(path, encoding="utf-8") as file:
                named = subjects_named(file.read())
            with self.subTest(module=module):
                self.assertEqual(named, [])

    def test_the_check_finds_a_subject_in_a_name_and_in_a_statement_but_not_in_prose(self):
        source = ('"""About articles."""\nARTICLES = "SELECT * FROM items"\ndef f(item):\n'
                  '    """An item."""\n    return item.items()  # each item\n')
        self.assertEqual(subjects_named(source), ["ARTICLES", "SELECT * FROM items"])


def subjects_named(source: str) -> List[str]:
    """What a module's code names of the stores' subjects: the names it defines (functions, classes, module-level
    names) and the strings it holds (a statement, a message), its docstrings, comments and local names aside."""
    tree = ast.parse(source)
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef)) and node.body
                  and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    defined = [node.name for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.ClassDef))]
    defined += [name.id for node in tree.body if isinstance(node, (ast.Assign, ast.AnnAssign))
                for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
                for name in ast.walk(target) if isinstance(name, ast.Name)]
    texts = [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)
             and id(node) not in docstrings]
    return [name for name in defined if SUBJECT_NAMES.search(name)] + [text for text in texts
                                                                       if SUBJECT_TEXT.search(text)]


if __name__ == "__main__":
    unittest.main()
