"""`python -m cairn.lsp`: run the language server (same as `cairn serve`)."""

from __future__ import annotations

import sys

from cairn.lsp.command import main

if __name__ == "__main__":
    sys.exit(main())
