"""The decision site (`cairn export html`), in parts: `timeline` (the front page's decisions)."""
