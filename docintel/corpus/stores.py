"""Open a corpus store by its location: the one module that knows every implementation.

Kept apart from ``store.py`` (the interface and the shared tables) so that the implementations
import the interface and nothing imports back.
"""

from __future__ import annotations

from pathlib import Path

from docintel.corpus.store import Store, is_postgres


def open_store(location: str | Path, **options) -> Store:
    """A store by location: a folder (embedded) or a ``postgresql://`` DSN."""
    if is_postgres(str(location)):
        from docintel.corpus.pgstore import PostgresStore

        return PostgresStore(str(location), **options)
    from docintel.corpus.embedded import EmbeddedStore

    return EmbeddedStore(Path(location), **options)
