"""`python -m cairn.cli`: the same as the `cairn` command."""

from cairn.cli import main

main()
