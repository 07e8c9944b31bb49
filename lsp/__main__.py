"""`python -m cairn.lsp`: run the language server (same as `cairn serve`)."""

from __future__ import annotations

import sys

if __name__ == "__main__":
    from cairn.cli import plain_serve

    level = plain_serve(["serve", *sys.argv[1:]])
    if level is not None:  # stdio: the first answer before the LSP imports
        from cairn.lsp.bootstrap import serve_stdio

        serve_stdio(level)
        sys.exit(0)
    from cairn.lsp.startup import prepare

    prepare()  # before the server's imports: see cairn.lsp.startup
    from cairn.lsp.server import main

    sys.exit(main())
