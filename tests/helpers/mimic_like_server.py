"""A Mimic-like MCP server for the agent-loop tests: database and Stripe read tools, writes.

``build_server(name)`` for an in-process Streamable HTTP server; run as a script it serves the
same tools over stdio. ``WRITES`` records every write that actually ran (the tests assert it
stays empty under the read-only policy).
"""

from __future__ import annotations

import asyncio
import json
import sys

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

CUSTOMERS = [
    {"id": 72, "name": "Orchard & Pike", "status": "active", "mrr_cents": 29900},
    {"id": 78, "name": "Quill Studio", "status": "active", "mrr_cents": 24100},
    {"id": 81, "name": "Lantern Labs", "status": "churned", "mrr_cents": 0},
]
INVOICES = {"cus_GL078": ["in_quill_apr: 241.00 USD, paid twice (ch_quill_a, ch_quill_b)"]}
WRITES: list[tuple[str, dict]] = []


def build_server(name: str = "mimic-like") -> MCPServer:
    server = MCPServer(name)

    @server.tool(description="Rows of the customers table, filtered by status.")
    def get_customers(status: str | None = None, limit: int = 50) -> str:
        rows = [c for c in CUSTOMERS if status is None or c["status"] == status]
        return json.dumps(rows[:limit])

    @server.tool(description="Stripe invoices of one customer.")
    def list_invoices(customer: str) -> str:
        return "\n".join(INVOICES.get(customer, [])) or f"no invoices for {customer}"

    @server.tool(description="Every payment, unfiltered (large).")
    def dump_payments() -> str:
        return "".join(f"ch_{i:05d} 100.00 USD succeeded\n" for i in range(2000))

    @server.tool(description="A slow read.")
    async def slow_report(seconds: float = 2.0) -> str:
        await asyncio.sleep(seconds)
        return "finally"

    @server.tool(description="A read that fails.")
    def broken_read() -> str:
        raise ToolError("table risk_flags is locked")

    @server.tool(description="Refund a charge.")
    def create_refund(charge: str, amount: int | None = None) -> str:
        WRITES.append(("create_refund", {"charge": charge, "amount": amount}))
        return f"re_1 for {charge}"

    @server.tool(
        description="Archive a customer.",
        annotations=ToolAnnotations(read_only_hint=False),
    )
    def archive_customer(customer_id: int) -> str:
        WRITES.append(("archive_customer", {"customer_id": customer_id}))
        return "archived"

    return server


if __name__ == "__main__":
    build_server(sys.argv[1] if len(sys.argv) > 1 else "mimic-like").run("stdio")


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve_http(name: str = "mimic-like"):  # type: ignore[no-untyped-def]
    """A context manager serving ``build_server(name)`` over Streamable HTTP on a free port of
    127.0.0.1 in a thread; yields its MCP URL."""
    import contextlib
    import threading
    import time

    import uvicorn

    @contextlib.contextmanager
    def run():  # type: ignore[no-untyped-def]
        port = free_port()
        config = uvicorn.Config(
            build_server(name).streamable_http_app(),
            host="127.0.0.1",
            port=port,
            log_level="warning",
        )
        server = uvicorn.Server(config)
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        deadline = time.monotonic() + 10
        while not server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.02)
        try:
            yield f"http://127.0.0.1:{port}/mcp"
        finally:
            server.should_exit = True
            thread.join(10)

    return run()
