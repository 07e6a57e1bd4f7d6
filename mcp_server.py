"""The MCP server's command: `python3 mcp_server.py --demo` serves the seven tools over stdio (--help for the rest).

The command lives in the package (osfoundry_tools/server/command_line.py), where `osfoundry-mcp` finds it too.
"""

import osfoundry_tools.minimum_python  # noqa: F401  (first: refuses a Python older than 3.9 in one line)

import sys

from osfoundry_tools.server.command_line import main

if __name__ == "__main__":
    sys.exit(main())
