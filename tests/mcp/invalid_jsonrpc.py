"""A stdio "server" that answers initialize correctly, then breaks JSON-RPC: a line that is not
JSON, and a tools/list result of the wrong shape (plain Python, no SDK)."""

import json
import sys

for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("method") == "initialize":
        print("this line is not JSON-RPC", flush=True)
        reply = {"protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}},
                 "serverInfo": {"name": "broken", "version": "0"}}
        print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": reply}), flush=True)
    elif msg.get("method") == "tools/list":
        print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": {"tools": "not-a-list"}}),
              flush=True)
    elif "id" in msg:
        print("{\"jsonrpc\": \"2.0\", \"id\": ", flush=True)
