"""The corpus router: which path answers a question.

Only the search path exists yet; list, follow and agent (DESIGN section 7) are their own
issues and register here (``PATHS``), with the router's own test cases when it starts to choose.
"""

from __future__ import annotations

ROUTES = ("search", "list", "follow", "agent")


def route(question: str) -> str:
    """The path for ``question``; every question takes the search path for now."""
    return "search"
