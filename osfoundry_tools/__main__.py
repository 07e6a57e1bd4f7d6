"""`python3 -m osfoundry_tools`: the MCP server's command, as `osfoundry-mcp` and `mcp_server.py` run it."""

import osfoundry_tools.minimum_python  # noqa: F401  (first: refuses a Python older than 3.9 in one line)

import sys

from osfoundry_tools.server.command_line import main

sys.exit(main())
