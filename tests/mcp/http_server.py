"""A streamable-HTTP MCP server built with the official Python SDK's FastMCP (pinned in
requirements.txt), started by tests/suite/engine/mcp_servers.rs on 127.0.0.1:<argv[1]>."""

import sys

import anyio
from mcp.server.fastmcp import Context, FastMCP

mcp = FastMCP("robota-test-http", host="127.0.0.1", port=int(sys.argv[1]))


@mcp.tool()
def add(a: int, b: int) -> int:
    """Adds two integers."""
    return a + b


@mcp.tool()
def auth_header(ctx: Context) -> str:
    """The Authorization header this request arrived with."""
    request = ctx.request_context.request
    return request.headers.get("authorization", "<none>") if request else "<none>"


@mcp.tool()
def fail() -> str:
    """Always fails."""
    raise ValueError("the tool failed on purpose")


@mcp.tool()
async def hang() -> str:
    """Never answers."""
    await anyio.sleep(3600)
    return "late"


mcp.run(transport="streamable-http")
