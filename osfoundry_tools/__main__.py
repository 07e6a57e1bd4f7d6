"""`python3 -m osfoundry_tools`: the MCP server's command, as `osfoundry-mcp` and `mcp_server.py` run it."""

import osfoundry_tools.minimum_python  # noqa: F401  (first: refuses a Python older than 3.9 in one line)

import sys

from osfoundry_tools.server.command_line import main

PROG = "python3 -m osfoundry_tools"  # the command as typed: its usage, --version and error lines name it so
# (main() would name it after sys.argv[0], which -m sets to this file's path)

sys.exit(main(prog=PROG))
