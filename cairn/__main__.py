"""`python -m cairn`: the same as the `cairn` command."""

from cairn.cli import main

main()
