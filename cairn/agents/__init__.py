"""The agent surface: the session digest, the MCP tools and their server.

Thin adapters over the store, the indexer and the shared findings: nothing here
decides what a verdict, a finding or a due review is.
"""
