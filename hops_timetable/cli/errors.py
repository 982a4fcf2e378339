"""What the command line reports as the user's to fix (exit status 2)."""

from __future__ import annotations


class BadInput(ValueError):
    """Input the user must fix; reported as one line with exit status 2."""
