"""What the tables say about one pointer of the loop: split from ``decide.py`` (same behaviour).

Whether a pointer is the label its own heading line opens with or its target's own label,
whether it may be another instrument's unit, whether any section or object
of the document carries its number, the publication ids the document is (so that it is not
named as an external reference to itself), and an author-year citation's entry in the
reference list; and the resolution of a pending reference, the tables first, then a backend's
pick among the toc's sections.
"""

from __future__ import annotations

import re

from docintel.errors import LLMError
from docintel.retrieval.bm25 import document_memo
from docintel.retrieval.resolve import model_brief, model_may_help, resolve_in_tables, section_resolution
from docintel.retrieval.targets import to_passages
from docintel.retrieval.windows import citation_entry
from docintel.schema.answer import PendingReference
from docintel.schema.document import DocTables
from docintel.schema.evidence import ParsedQuestion
from docintel.schema.kinds import HEADING_ROLES
from docintel.schema.loop import Resolution

#: Kinds of pointer that may name another instrument's unit ("§ 1316.47", "Art. I", "Schedule
#: A"); a table, figure, equation or note this document lacks is a parse's miss, not another's.
PROVISIONS = ("section", "appendix", "annex", "clause", "article", "chapter", "part", "unknown")
#: Roles of a line that labels its region (a heading, a caption).
LABEL_ROLES = HEADING_ROLES | {"caption"}


def may_be_elsewhere(res: Resolution) -> bool:
    """A numbered provision-like pointer the tables matched nowhere (perhaps another
    instrument's unit; :func:`numbers` then tells whether this document numbers it)."""
    return (
        res.status == "unresolved"
        and res.method == "none"
        and bool(res.target)
        and res.ref_type in PROVISIONS
    )


def labels_itself(ref: PendingReference, res: Resolution) -> bool:
    """The pointer is its target's own label: written on the target's first line or on a
    heading or caption inside it ("Table 1: ..." under the table). A pointer written inside
    the region on a body line ("Subtract line 14" in line 14's window) still points."""
    at = (ref.origin_page, ref.origin_line)
    for p in res.passages:
        for i, ln in enumerate(p.lines):
            if (ln.page, ln.line) == at:
                return i == 0 or ln.role in LABEL_ROLES
    return False


def own_ids(tables: DocTables) -> set[str]:
    """The publication ids this document is (its DOI, its running headers): a scan of every
    line, document-only, so kept (and stored) with the retrieval index."""
    return document_memo(tables, "own_ids", lambda: scan_own_ids(tables))


def scan_own_ids(tables: DocTables) -> set[str]:
    """:func:`own_ids` computed from the lines."""
    from docintel.identifiers.own import own_ids as ids

    ln = tables.line_df
    cols = (ln["page"], ln["role"], ln["text"]) if len(ln) else ((), (), ())
    return ids((int(p), str(r or ""), str(t or "")) for p, r, t in zip(*cols, strict=True))


def opens_heading(tables: DocTables, ref: PendingReference) -> bool:
    """The reference is the label a heading line opens with (the section names itself)."""
    ln = tables.line_df
    if ln is None or ln.empty:
        return False
    row = ln[(ln["page"] == ref.origin_page) & (ln["line"] == ref.origin_line)]
    if row.empty or row["role"].iloc[0] not in HEADING_ROLES:
        return False
    text = " ".join(str(row["text"].iloc[0]).split()).lower()
    return text.startswith(" ".join(ref.raw_text.split()).lower())


def numbers(tables: DocTables, target: str | None) -> bool:
    """Whether a section or an object of this document is numbered ``target``, inside it ("4"
    for "4.1") or holds it ("2" for "2.9"): the resolver's miss is then not the document's lack."""
    if not target:
        return True
    want = " ".join(str(target).split()).lower().strip(".")
    parent = want.rsplit(".", 1)[0] if "." in want else None
    toc, reg = tables.toc_df, tables.object_registry
    ids = [*(toc["number"] if len(toc) else ()), *(reg["object_id"] if len(reg) else ())]
    for i in ids:
        have = str(i or "").lower().strip(".")
        if have and (have in (want, parent) or have.startswith(want + ".")):
            return True
    return False


def author_year(tables: DocTables, ref: PendingReference, pattern: re.Pattern) -> Resolution | None:
    """An author-year citation ("Hendrycks and Gimpel, 2016") resolved to its entry in the
    document's reference list (author-year lists are not registered objects); ``pattern`` reads
    the citation's name and year (the generation brick's grammar, handed in by the loop)."""
    m = pattern.match(ref.raw_text.strip("()[] "))
    if not m:
        return None
    rows = citation_entry(tables, m["name"], m["year"])
    if rows.empty:
        return None
    note = f"pulled in because of '{ref.raw_text}' on page {ref.origin_page}, line {ref.origin_line}"
    passages = to_passages(rows, tables.doc_id, retrieved_via="reference", ref=ref, note=note)
    return Resolution(
        ref, "resolved", "reference_list", "bib", target=f"{m['name']} {m['year']}",
        target_pages=sorted({p.page for p in passages}), passages=passages,
        reason=f"reference list: the entry of {m['name']} ({m['year']})",
    )  # fmt: skip


def resolve_with(
    ref: PendingReference,
    tables: DocTables,
    *,
    question: ParsedQuestion,
    backend=None,
    max_lines: int = 40,
) -> Resolution:
    """Resolve one pending reference: the tables first (deterministic), then, for a relative or
    unnumbered section reference, the backend's pick among the toc's sections (``backend``: an
    ``LLMBackend``, or None for the tables alone)."""
    res = resolve_in_tables(ref, tables, question=question, max_lines=max_lines)
    if backend is None or not model_may_help(res):
        return res
    brief = model_brief(tables, ref)
    if brief is None:
        return res
    try:
        toc_id = backend.resolve_reference(ref.raw_text, *brief)
    except LLMError as exc:  # a failed resolver call leaves the reference unresolved, not the ask failed
        return Resolution(ref, "unresolved", "llm", "section", reason=f"LLM resolver failed: {exc}"[:300])
    if not toc_id:
        return res
    method = "offline_rules" if backend.kind == "rules" else "llm"
    picked = section_resolution(
        tables, ref, str(toc_id), question=question, max_lines=max_lines, method=method,
        reason=f"{backend.name} chose section {toc_id}",
    )  # fmt: skip
    return picked or res


__all__ = [
    "author_year",
    "labels_itself",
    "may_be_elsewhere",
    "numbers",
    "opens_heading",
    "own_ids",
    "resolve_with",
]
