"""Corpus answer paths. ``search`` is here; ``list``, ``follow`` and ``agent`` register in
:data:`PATHS` when their issues land (each: ``run(corpus, question, user, **options) -> dict``)."""

from __future__ import annotations

from docintel.corpus.paths import agent as agent_path
from docintel.corpus.paths import follow, search
from docintel.corpus.paths import list as list_path

PATHS = {"search": search.run, "list": list_path.run, "follow": follow.run, "agent": agent_path.run}

__all__ = ["PATHS"]
