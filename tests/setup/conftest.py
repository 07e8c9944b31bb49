"""Setup's tests build on the gate's real project (tests/check/check_fixtures.py): one
fixture for "a repository with a reverted column and a rejected dependency"."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "check"))
