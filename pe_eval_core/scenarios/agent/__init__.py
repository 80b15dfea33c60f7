"""The agent under test: the targets a run evaluates, the tool-use loop, its MCP servers and
the read-only tool policy."""
