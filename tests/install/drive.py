#!/usr/bin/env python3
"""Runs one consumer of the installed library against the fake model server and checks its turn.

    tests/install/drive.py PROGRAM [ARG...]

Every consumer in tests/install/ (C, C++ through CMake, Go, Swift, C# from the NuGet package) is
built against an installed prefix, never the source tree, and does the same thing: a runtime with
the provider "fake" ({"kind":"openai-compatible","base_url":$ROBOTA_BASE_URL,"api_key":"test"}),
a host tool "add" ({"a":int,"b":int} -> the sum as text), one session on model "fake-model", one
streamed turn with the prompt "What is 2 + 3?". It prints, in this order:

    tool add {"a":2,"b":3}        when the host tool is called (its arguments as received)
    text The sum is 5.            after the turn: every TEXT_DELTA of the turn, concatenated

and exits 0. This script starts the fake server (examples/fake_model_server.rs; $ROBOTA_FAKE_SERVER
or target/debug/examples/fake_model_server), queues the model's two answers (a tool call, then
the text in two deltas), runs the program with ROBOTA_BASE_URL set, and checks its output, its
exit status and that the second request carried the tool's result to the model.
"""
import json
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
EXPECTED = 'tool add {"a":2,"b":3}\ntext The sum is 5.\n'


def main(argv):
    if len(argv) < 2:
        sys.exit("usage: drive.py PROGRAM [ARG...]")
    server_path = os.environ.get("ROBOTA_FAKE_SERVER") or os.path.join(
        ROOT, "target", "debug", "examples", "fake_model_server")
    if not os.path.exists(server_path):
        sys.exit(f"drive.py: no fake model server at {server_path} "
                 "(cargo build --example fake_model_server, or set ROBOTA_FAKE_SERVER)")
    server = subprocess.Popen([server_path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        hello = json.loads(server.stdout.readline())

        def command(cmd):
            server.stdin.write(json.dumps(cmd) + "\n")
            server.stdin.flush()
            answer = json.loads(server.stdout.readline())
            if not answer.get("ok"):
                sys.exit(f"drive.py: fake server refused {cmd}: {answer}")
            return answer

        command({"cmd": "enqueue", "kind": "openai", "text": [],
                 "tools": [["call_1", "add", '{"a":2,"b":3}']]})
        command({"cmd": "enqueue", "kind": "openai", "text": ["The sum ", "is 5."]})
        env = dict(os.environ, ROBOTA_BASE_URL=hello["base_url"] + "/v1")
        run = subprocess.run(argv[1:], env=env, stdout=subprocess.PIPE, text=True, timeout=300)
        failures = []
        if run.returncode != 0:
            failures.append(f"exit status {run.returncode}")
        if run.stdout != EXPECTED:
            failures.append(f"stdout {run.stdout!r}, expected {EXPECTED!r}")
        requests = command({"cmd": "requests"})["requests"]
        if len(requests) != 2:
            failures.append(f"{len(requests)} requests reached the model, expected 2")
        else:
            body = json.loads(requests[1]["body"]) if isinstance(requests[1]["body"], str) else requests[1]["body"]
            tool_messages = [m for m in body.get("messages", []) if m.get("role") == "tool"]
            if [m.get("content") for m in tool_messages] != ["5"]:
                failures.append(f"the second request's tool messages are {tool_messages}, expected one with content \"5\"")
        if failures:
            sys.exit(f"drive.py: {' '.join(argv[1:])}: " + "; ".join(failures))
        print(f"ok: {' '.join(argv[1:])}: one streamed turn with the host tool")
    finally:
        server.stdin.close()
        server.wait(timeout=30)


if __name__ == "__main__":
    main(sys.argv)
