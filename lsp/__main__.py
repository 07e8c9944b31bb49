"""`python -m cairn.lsp`: run the language server (same as `cairn serve`)."""

from __future__ import annotations

import sys

from cairn.lsp.startup import prepare

if __name__ == "__main__":
    prepare()  # before the server's imports: see cairn.lsp.startup
    from cairn.lsp.server import main

    sys.exit(main())
