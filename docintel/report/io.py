"""What both writers need besides the marks: the tables the answer was made from, the PDF,
and an atomic write."""

from __future__ import annotations

import logging
import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path

from docintel.errors import UsageError
from docintel.schema.document import DocTables
from docintel.schema.result import AskResult

log = logging.getLogger(__name__)


def load_tables(
    result: AskResult,
    pdf_path: str | Path,
    tables: DocTables | None,
    out_dir: str | Path | None,
    parse_options: dict,
) -> DocTables:
    """The document's tables (parsed, or served from the cache), checked against the result."""
    if tables is None:
        from docintel.parsing import parse_document
        from docintel.settings import artifacts_dir

        if out_dir is None:
            out_dir = artifacts_root_of(result)
        tables = parse_document(pdf_path, out_dir=artifacts_dir(out_dir), **parse_options)
    if result.doc_id and tables.doc_id and result.doc_id != tables.doc_id:
        raise UsageError(
            f"{pdf_path}: this PDF (doc_id {tables.doc_id}) is not the one the answer was made from "
            f"(doc_id {result.doc_id}); give the same PDF"
        )
    mismatched = mismatched_evidence(result, tables)
    if mismatched:
        log.warning(
            "%d of %d evidence passages differ from these tables (parsed with other options or another "
            "parser version?); the boxes may sit on the wrong lines: pass the tables the answer was made from",
            mismatched,
            len(result.evidence),
        )
    return tables


def artifacts_root_of(result: AskResult) -> Path | None:
    """The artifacts folder ``ask`` used, read back from its trace path
    (``<root>/<doc_id>/traces/<file>.json``), so the report reuses the very tables the
    answer was made from instead of parsing again somewhere else."""
    if not result.trace_path:
        return None
    p = Path(result.trace_path)
    if p.parent.name == "traces" and p.parent.parent.name == result.doc_id:
        return p.parent.parent.parent
    return None


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


def _same_line(a: str, b: str) -> bool:
    wa, wb = _words(a), _words(b)
    if not wa and not wb:
        return True
    # Containment, not equality: a table passage line is a whole row, line_df holds one cell.
    return len(wa & wb) >= 0.6 * max(min(len(wa), len(wb)), 1)


def mismatched_evidence(result: AskResult, tables: DocTables) -> int:
    """How many evidence passages of ``result`` do not start and end on the same text in
    ``tables``: line numbers only mean something against the tables they came from.

    Words are compared, not characters, because a table passage is shown to the model as
    cells ("(E) | | positional ...") while ``line_df`` holds the printed line."""
    df = tables.line_df
    bad = 0
    for e in result.evidence:
        try:
            page, start, end = int(e["page"]), int(e["line_start"]), int(e["line_end"])
        except (KeyError, TypeError, ValueError):
            continue
        sel = df[(df["page"] == page) & (df["line"] >= start) & (df["line"] <= end)].sort_values("line")
        shown = [ln for ln in str(e.get("text", "")).splitlines() if ln.strip()]
        lines = [str(t) for t in sel["text"] if str(t).strip()]
        if not shown:
            continue
        if not lines or not (_same_line(shown[0], lines[0]) and _same_line(shown[-1], lines[-1])):
            bad += 1
    return bad


def open_document(pdf_path: str | Path, password: str | None = None):
    """Open the PDF (read-only use: the original file is never written)."""
    from docintel.parsing.pdf import open_pdf, read_pdf_bytes

    return open_pdf(read_pdf_bytes(pdf_path), name=Path(pdf_path).name, password=password)


def write_atomically(out_path: str | Path, write: Callable[[Path], None], *, source: str | Path) -> Path:
    """Call ``write(tmp)`` on a temporary file beside ``out_path``, then rename it into place,
    so a reader never sees half a file and a failure leaves no debris."""
    out = Path(out_path)
    if out.exists() and out.resolve() == Path(source).resolve():
        raise UsageError(f"{out}: refusing to overwrite the source PDF; give another output path")
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        write(tmp)
        # mkstemp makes the file 0600; give it the mode a plain open() would have.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, out)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return out
