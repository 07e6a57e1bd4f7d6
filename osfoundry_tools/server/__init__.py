"""The MCP server: the protocol in both eras (protocol.py, methods.py), the tools of whatever stores it is given
routed by name and by resource type (routing.py), the transports (stdio.py; streamable_http.py behind its bounded
front, http_front.py, and its worker processes, http_workers.py), bearer tokens (tokens.py), a person's approval
of each write (approval.py), the workspace it serves (workspace.py) and the command (command_line.py).

A transport hands the methods one message at a time; the methods hand each tool call to the routing, which hands
it to a store's call_tool.
"""
