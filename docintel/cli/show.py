"""A table as a person reads it on a terminal: integer columns as integers, missing values
blank, long text cut with an ellipsis so that a row fits the terminal's width.

Only the text format goes through here; csv and json keep every value as it is stored.
"""

from __future__ import annotations

import contextlib
import shutil

#: Narrowest a text column is cut to, so a cut value still says something.
MIN_TEXT_WIDTH = 12
#: Characters between two columns in ``DataFrame.to_string``.
COLUMN_GAP = 2
ELLIPSIS = "…"


def terminal_width(default: int = 120) -> int:
    """Columns of the terminal (env COLUMNS first, then the terminal, else ``default``)."""
    return max(40, shutil.get_terminal_size((default, 24)).columns)


def for_display(df, spec=None):
    """``df`` with the columns a schema declares as integers in pandas' nullable ``Int64``
    (a missing page prints blank, never turns ``16`` into ``16.0``)."""
    import pandas as pd

    out = df.copy()
    declared = dict(spec.columns) if spec is not None else {}
    for col in out.columns:
        kind = declared.get(col)
        if col not in declared and pd.api.types.is_float_dtype(out[col]):
            values = out[col].dropna()
            kind = "int" if len(values) and (values == values.round()).all() else None
        if kind and kind.startswith("int") and not pd.api.types.is_bool_dtype(out[col]):
            with contextlib.suppress(TypeError, ValueError):  # not numeric after all: kept as is
                out[col] = pd.to_numeric(out[col], errors="raise").astype("Int64")
    return out


def _cut(value, width: int):
    if not isinstance(value, str) or len(value) <= width:
        return value
    return value[: width - 1] + ELLIPSIS


def fit_width(df, width: int):
    """Cut the widest text columns (object/string dtype) until a row fits ``width``; other
    columns are never cut. Returns a new frame."""
    import pandas as pd

    out = df.copy()
    text_cols = [
        c for c in out.columns if pd.api.types.is_object_dtype(out[c]) or pd.api.types.is_string_dtype(out[c])
    ]

    def natural(col) -> int:
        values = out[col].map(lambda v: "" if v is None or v is pd.NA or v != v else str(v))
        return max([len(str(col))] + [len(v) for v in values])

    widths = {c: natural(c) for c in out.columns}
    fixed = sum(w for c, w in widths.items() if c not in text_cols) + COLUMN_GAP * max(0, len(widths) - 1)

    def total(cap: int) -> int:
        return fixed + sum(min(widths[c], max(cap, len(str(c)))) for c in text_cols)

    # one cap for every text column (the longest are cut first, and all to the same width)
    cap = max([widths[c] for c in text_cols], default=0)
    while cap > MIN_TEXT_WIDTH and total(cap) > width:
        cap -= 1
    widths.update({c: min(widths[c], max(cap, len(str(c)))) for c in text_cols})
    for c in text_cols:
        out[c] = out[c].map(lambda v, w=widths[c]: _cut(v, w))
    return out


def render_text(df, *, spec=None, limit: int, width: int | None = None) -> tuple[str, int]:
    """The first ``limit`` rows (all when ``limit`` is 0) as text fitted to ``width``.
    Returns the text and how many rows were left out."""
    width = width or terminal_width()
    shown = df if limit == 0 else df.head(limit)
    hidden = len(df) - len(shown)
    if not len(df):
        return "(empty)", 0
    frame = fit_width(for_display(shown, spec), width)
    text = frame.to_string(index=False, na_rep="", line_width=width, float_format=_short_float)
    return text, hidden


def _short_float(x: float) -> str:
    """Two decimals at most (PDF coordinates are points; more digits only widen the table)."""
    return f"{x:.2f}".rstrip("0").rstrip(".") if x == x else ""
