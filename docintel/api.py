"""The public API: what the CLI and the notebooks call."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from docintel.schema.document import DocTables


def parse(
    path: str | Path,
    *,
    layout: str = "auto",
    parser: str = "pymupdf",
    docling_json: str | Path | None = None,
    password: str | None = None,
    eager_refs: bool = False,
    out_dir: str | Path | None = None,
    use_cache: bool = True,
    progress: Callable[[int, int], None] | None = None,
    **limits,
) -> DocTables:
    """Parse a PDF into its relational tables (pandas DataFrames), cached as Parquet.

    ``out_dir`` defaults to ``DOCINTEL_ARTIFACTS`` or ``./artifacts``.
    """
    from docintel.parsing import parse_document
    from docintel.settings import artifacts_dir

    return parse_document(
        path,
        layout=layout,
        parser=parser,
        docling_json=docling_json,
        password=password,
        eager_refs=eager_refs,
        out_dir=artifacts_dir(out_dir),
        use_cache=use_cache,
        progress=progress,
        **limits,
    )
