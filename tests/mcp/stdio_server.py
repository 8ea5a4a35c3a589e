"""A stdio MCP server built with the official Python SDK's FastMCP for the failure cases of
tests/suite/engine/mcp_servers.rs: a crash mid-call, a call that never answers, an oversized result,
a tool whose schema is not valid JSON Schema, and a tool list that changes."""

import os

import anyio
from mcp.server.fastmcp import Context, FastMCP

mcp = FastMCP("robota-test-stdio")


@mcp.tool()
def pid() -> int:
    """This server's process id."""
    return os.getpid()


@mcp.tool()
def crash() -> str:
    """Exits in the middle of the call."""
    os._exit(3)


@mcp.tool()
async def hang() -> str:
    """Never answers."""
    await anyio.sleep(3600)
    return "late"


@mcp.tool()
def big(n: int) -> str:
    """n characters of output."""
    return "y" * n


@mcp.tool()
def bad_schema(x: int) -> int:
    """Its input schema is replaced by an invalid one below."""
    return x


def late() -> str:
    """Added at run time."""
    return "late tool answered"


@mcp.tool()
async def add_tool(ctx: Context) -> str:
    """Adds the tool `late` and tells the client its tool list changed."""
    mcp.add_tool(late)
    await ctx.session.send_tool_list_changed()
    return "added"


mcp._tool_manager._tools["bad_schema"].parameters = {"type": "no-such-type"}
mcp.run()
