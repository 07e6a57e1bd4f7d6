"""The product as a package: it installs into a fresh venv with nothing else, and its server command answers MCP.

MCP clients start servers from a command in their configuration, often `uvx` or a pipx-installed one, so
`pip install .` (what pipx does, in a venv of its own) and `uvx --from . osfoundry-mcp` must work. Building
needs setuptools from the package index, so `make test` reads only pyproject.toml here; `make conformance`
sets PACKAGE_INSTALL=1 and installs for real (and tries uvx where it is installed, as that target does).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from tests.helpers import ROOT
from osfoundry_tools import cli

INSTALL = os.environ.get("PACKAGE_INSTALL") == "1"
WAIT = 300  # seconds for an install, which downloads the build backend
TOP_LEVEL = ("import os, sysconfig; folder = sysconfig.get_paths()['purelib']; print(*sorted(name.removesuffix('.py') "
             "for name in os.listdir(folder) if (name.endswith('.py') or os.path.isfile(os.path.join(folder, name, "
             "'__init__.py'))) and not name.startswith(('_', 'pip', 'setuptools', 'pkg_resources'))))")
# the venv's top-level modules and packages, beside pip's and setuptools' own
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "package-test", "version": "1"}}}


def pyproject():
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as file:
        return file.read()


def answers_initialize(command, cwd):
    """The server's answer to initialize, sent on stdin, stdin then closed."""
    done = subprocess.run(command, input=json.dumps(INITIALIZE) + "\n", capture_output=True, text=True,
                          timeout=WAIT, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[0])


class PackageDefinitionTest(unittest.TestCase):
    def test_the_package_is_the_one_folder_of_the_product_and_nothing_at_the_top_level(self):
        text = pyproject()
        self.assertIn('[tool.setuptools.packages.find]\ninclude = ["osfoundry_tools*"]', text)
        self.assertNotIn("py-modules", text)

    def test_it_has_no_runtime_dependency_and_its_version_is_the_commands_one(self):
        text = pyproject()
        self.assertIn("\ndependencies = []\n", text)
        self.assertIn('version = {attr = "osfoundry_tools.cli.VERSION"}', text)
        self.assertIn('osfoundry-mcp = "osfoundry_tools.server.command_line:main"', text)
        self.assertIn('requires-python = ">=3.9"', text)


@unittest.skipUnless(INSTALL, "installs from the package index: make conformance runs it (PACKAGE_INSTALL=1)")
class InstalledTest(unittest.TestCase):
    def test_pip_installs_it_into_a_fresh_venv_and_its_command_answers_initialize(self):
        with tempfile.TemporaryDirectory() as folder:
            venv = os.path.join(folder, "venv")
            subprocess.run([sys.executable, "-m", "venv", venv], check=True, timeout=WAIT)
            done = subprocess.run([os.path.join(venv, "bin", "python"), "-m", "pip", "install", "-q", ROOT],
                                  capture_output=True, text=True, timeout=WAIT)
            self.assertEqual(done.returncode, 0, done.stderr)
            listed = subprocess.run([os.path.join(venv, "bin", "python"), "-m", "pip", "list", "--format=json"],
                                    capture_output=True, text=True, timeout=WAIT, check=True)
            installed = {package["name"] for package in json.loads(listed.stdout)}
            self.assertEqual(installed - {"pip", "setuptools"}, {"osfoundry-tools"})
            command = os.path.join(venv, "bin", "osfoundry-mcp")
            version = subprocess.run([command, "--version"], capture_output=True, text=True, timeout=WAIT)
            self.assertEqual(version.stdout, f"osfoundry-mcp {cli.VERSION}\n")
            refused = subprocess.run([command, "--frobnicate"], capture_output=True, text=True, timeout=WAIT)
            self.assertEqual(refused.returncode, cli.EXIT_USAGE)
            self.assertTrue(refused.stderr.startswith("osfoundry-mcp: error: "), refused.stderr)
            self.assertIn("(osfoundry-mcp --help explains", refused.stderr)
            answer = answers_initialize([command, "--demo"], cwd=folder)  # away from the repository's modules
            self.assertEqual(answer["result"]["serverInfo"]["version"], cli.VERSION)
            python = os.path.join(venv, "bin", "python")
            top = subprocess.run([python, "-c", TOP_LEVEL], capture_output=True, text=True, timeout=WAIT, cwd=folder)
            self.assertEqual(top.stdout.split(), ["osfoundry_tools"], top.stderr)
            for generic in ("plumbing", "cli", "database", "engines", "workload", "kb_store"):
                with self.subTest(module=generic):
                    imported = subprocess.run([python, "-c", f"import {generic}"], capture_output=True, text=True,
                                              timeout=WAIT, cwd=folder)
                    self.assertIn("ModuleNotFoundError", imported.stderr)

    def test_uvx_runs_the_server_from_the_repository(self):
        uvx = os.environ.get("UVX") or shutil.which("uvx")
        if uvx is None or not os.path.exists(uvx):
            self.skipTest("uvx is not installed (make conformance installs uv into .venv)")
        with tempfile.TemporaryDirectory() as folder:
            answer = answers_initialize([uvx, "--no-config", "--from", ROOT, "osfoundry-mcp", "--demo"], cwd=folder)
        self.assertEqual(answer["result"]["protocolVersion"], "2025-11-25")


if __name__ == "__main__":
    unittest.main()
