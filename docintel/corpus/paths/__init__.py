"""Corpus answer paths. ``search`` is here; ``list``, ``follow`` and ``agent`` register in
:data:`PATHS` when their issues land (each: ``run(corpus, question, user, **options) -> dict``)."""

from __future__ import annotations

from docintel.corpus.paths import follow, search

PATHS = {"search": search.run, "follow": follow.run}

__all__ = ["PATHS"]
