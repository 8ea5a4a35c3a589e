"""A minimal stdio MCP server in plain Python (no SDK) for benches/mcp.rs: one tool `echo`
answering at once, so a call's time is the transport and the client, not the server's work."""

import json
import sys

TOOL = {"name": "echo", "description": "Echoes `text`.",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}},
                        "required": ["text"]}}
out = sys.stdout
for line in sys.stdin:
    msg = json.loads(line)
    method = msg.get("method")
    if method == "initialize":
        result = {"protocolVersion": msg["params"]["protocolVersion"],
                  "capabilities": {"tools": {}}, "serverInfo": {"name": "echo", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": [TOOL]}
    elif method == "tools/call":
        result = {"content": [{"type": "text", "text": msg["params"]["arguments"]["text"]}]}
    elif "id" in msg:
        result = {}
    else:
        continue
    out.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}) + "\n")
    out.flush()
