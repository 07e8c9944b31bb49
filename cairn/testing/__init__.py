"""Test and demo helpers that ship with Cairn but are not part of the server.

`cairn.testing.editor.Editor` is a scripted LSP client: it starts the real
`cairn serve` and talks to it over stdio (used by `cairn demo`, `bench/` and tests).
`cairn.testing.gitenv.isolated_env` is the one environment tests and benchmarks run
real git in (bench/ may not import from tests/).
"""
