"""Find references and conditional clauses in evidence lines, for the offline backend and the validator.

The parsing brick owns the regex extractor (``docintel.parsing.crossrefs.extract_references``);
this module uses it when it is available and returns rows, and otherwise falls back to the
small built-in pattern set below. External documents (SP 800-90, ISO 27001, 14 CFR 25.1707,
bracketed ids like [SP 800-90]) are always found here, since they are named, never resolved.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass

from docintel.generation.text import nfkc, normalize
from docintel.schema.evidence import EvidenceLine, Passage

log = logging.getLogger(__name__)

_REF_TYPES = {
    "section", "table", "figure", "equation", "annex", "appendix", "bib", "external",
    "clause", "definition", "page", "footnote", "condition", "unknown",
}  # fmt: skip
_SKIP_ROLES = {"header", "footer", "page_number", "toc_entry"}


@dataclass(frozen=True)
class DetectedRef:
    """One reference mention: what it says, what it points at, where it is written."""

    raw_text: str
    ref_type: str
    target: str
    page: int
    line: int
    sub_selector: str = ""
    external: bool = False
    context: str = ""


@dataclass(frozen=True)
class DetectedCondition:
    text: str
    page: int
    line: int


_SEL = r"\(?[A-Za-z0-9]{1,4}\)?"
_ROWS = rf"(?:,?\s*(?:rows?|columns?|lines?)\s+{_SEL}(?:\s*(?:,|and|through|to|-)\s*{_SEL})*)?"
# Order matters: earlier patterns claim their span first ('defined in Section 1.5' is a
# definition, not a plain section reference; 'SP 800-90' is external before anything else).
_EXTERNAL = [
    re.compile(r"\[(?:NIST\s+)?(?:SP|FIPS|RFC|ISO|IEC|IEEE|ANSI|NISTIR|X\.)[^\]\[]{0,40}\]"),
    re.compile(
        r"\b(?:NIST\s+)?(?:SP|FIPS(?:\s+PUB)?)\s+\d{2,4}(?:-\d+[A-Za-z0-9]*)*(?:\s+Rev(?:ision)?\.?\s*\d+)?"
    ),
    re.compile(r"\bISO(?:/IEC)?\s+\d{3,5}(?:-\d+)?(?::\d{4})?(?:\s+Annex\s+[A-Z])?"),
    re.compile(r"\bRFC\s?\d{3,5}\b"),
    re.compile(r"\bIEEE\s+(?:Std\s+)?\d{3,5}(?:\.\d+)?"),
    re.compile(r"\b\d{1,2}\s+CFR\s+(?:[Pp]art\s+)?\d+(?:\.\d+)?(?:\([a-z0-9]+\))*"),
    re.compile(r"\bAC\s+\d+(?:\.\d+)?-\d+[A-Z]?\b"),
]
_INTERNAL: list[tuple[str, re.Pattern[str]]] = [
    ("definition", re.compile(r"\b(?:as\s+)?defined\s+in\s+(?:Section|section|§)\s*(\d+(?:\.\d+)*)")),
    ("table", re.compile(r"\b(?:the\s+)?(?:bottom|top|last|first)\s+(?:line|row)s?\s+of\s+Table\s+(\d+)")),
    ("table", re.compile(rf"\b(?:Table|TABLE|Tab\.)\s+([A-Z]?\d+(?:[.-]\d+)*|[IVX]+)\b{_ROWS}")),
    (
        "figure",
        re.compile(
            r"\b(?:Figure|FIGURE|Fig\.|figure)\s+(\d+(?:[.-]\d+)*[a-z]?)(?:\s+to\s+paragraph\s+(?:\([a-z0-9]+\))+)?"
        ),
    ),
    ("equation", re.compile(r"\b(?:Equation|equation|Eq\.|Eqn\.)\s*\(?(\d+(?:\.\d+)?)\)?")),
    ("section", re.compile(r"(?:\b(?:Sections?|sections?|Sec\.)\s*|§§?\s*)(\d+(?:\.\d+)*)")),
    ("appendix", re.compile(r"\b(?:Appendix|APPENDIX)\s+([A-Z](?:\.\d+)*|\d+)\b")),
    ("annex", re.compile(r"\b(?:Annex|ANNEX)\s+([A-Z](?:\.\d+)*|\d+)\b")),
    ("appendix", re.compile(r"\b[Tt]he\s+(?:[Aa]ppendix|APPENDIX)()\b")),
    ("annex", re.compile(r"\b[Tt]he\s+(?:[Aa]nnex|ANNEX)()\b")),
    (
        "clause",
        re.compile(r"\bparagraphs?\s+((?:\([a-z0-9]+\))+)(?:\s+(?:through|and|to)\s+(?:\([a-z0-9]+\))+)?"),
    ),
    ("section", re.compile(r"\b[Ss]ee\s+(?:the\s+)?((?:[A-Z][\w-]*\s+){1,5})[Ss]ection\b")),
    ("section", re.compile(r"\b[Tt]he\s+(?:previous|preceding|following|next|foregoing)\s+section()\b")),
    ("page", re.compile(r"\b(?:[Ss]ee|on)\s+pages?\s+(\d+)\b")),
    ("bib", re.compile(r"\[(\d+(?:\s*[,\u2013-]\s*\d+)*)\]")),
]
_CONDITION = re.compile(
    r"\b(?:applies\s+only\s+if|only\s+if|provided\s+that|unless|in\s+the\s+case\s+where|"
    r"on\s+condition\s+that|except\s+where|if\s+and\s+only\s+if)\b[^.;]*",
    re.IGNORECASE,
)


def _runs(lines: Sequence[EvidenceLine]) -> list[list[EvidenceLine]]:
    """Split lines into runs of consecutive lines on one page (so a reference may span a break)."""
    runs: list[list[EvidenceLine]] = []
    for ln in sorted(lines, key=lambda x: (x.page, x.line)):
        if runs and runs[-1][-1].page == ln.page and ln.line == runs[-1][-1].line + 1:
            runs[-1].append(ln)
        elif not (runs and runs[-1][-1].page == ln.page and runs[-1][-1].line == ln.line):
            runs.append([ln])
    return runs


def _joined(run: list[EvidenceLine]) -> tuple[str, list[int]]:
    """The run's text joined with spaces, and each line's start offset."""
    text, starts = "", []
    for ln in run:
        starts.append(len(text) + (1 if text else 0))
        text = f"{text} {nfkc(ln.text)}" if text else nfkc(ln.text)
    return text, starts


def _line_at(run: list[EvidenceLine], starts: list[int], pos: int) -> EvidenceLine:
    idx = max(i for i, s in enumerate(starts) if s <= pos)
    return run[idx]


def _is_own_label(text: str, start: int, end: int, ln: EvidenceLine) -> bool:
    """'Table 3: Variations...' at the start of a caption is the object, not a reference to it."""
    before = text[:start].rstrip()
    after = text[end : end + 2]
    at_line_start = not before or ln.role in ("caption", "heading", "title")
    return at_line_start and (after[:1] in (":", ".", "") or ln.role in ("caption", "heading", "title"))


def _sentence_around(text: str, start: int, end: int) -> str:
    left = max(text.rfind(". ", 0, start), text.rfind("; ", 0, start))
    right_candidates = [i for i in (text.find(". ", end), text.find("; ", end)) if i >= 0]
    right = min(right_candidates) + 1 if right_candidates else len(text)
    return text[left + 2 if left >= 0 else 0 : right].strip()[:400]


def _sub_selector(ref_type: str, raw: str, m: re.Match[str]) -> str:
    """What to select inside the target: 'row (E)', 'bottom line', 'to paragraph (i)'."""
    if ref_type not in ("table", "figure", "clause") or not m.groups():
        return ""
    lead = re.match(r"(?:the\s+)?((?:bottom|top|last|first)\s+(?:line|row)s?)\s+of\b", raw)
    if lead:
        return lead.group(1)
    if m.group(1) is None:
        return ""
    return raw[m.end(1) - m.start() :].strip(" ,")


def _builtin(lines: Sequence[EvidenceLine], *, internal: bool = True) -> list[DetectedRef]:
    out: list[DetectedRef] = []
    for run in _runs([ln for ln in lines if ln.role not in _SKIP_ROLES]):
        text, starts = _joined(run)
        taken: list[tuple[int, int]] = []

        def free(s: int, e: int, taken: list[tuple[int, int]] = taken) -> bool:
            return all(e <= a or s >= b for a, b in taken)

        for pat in _EXTERNAL:
            for m in pat.finditer(text):
                if free(m.start(), m.end()):
                    taken.append((m.start(), m.end()))
                    ln = _line_at(run, starts, m.start())
                    name = m.group(0).strip("[] ")
                    ctx = _sentence_around(text, m.start(), m.end())
                    out.append(
                        DetectedRef(
                            m.group(0), "external", name, ln.page, ln.line, external=True, context=ctx
                        )
                    )
        if not internal:
            continue
        for ref_type, pat in _INTERNAL:
            for m in pat.finditer(text):
                if not free(m.start(), m.end()):
                    continue
                ln = _line_at(run, starts, m.start())
                line_start = starts[run.index(ln)]
                if ref_type in ("table", "figure", "appendix", "annex") and _is_own_label(
                    text[line_start:], m.start() - line_start, m.end() - line_start, ln
                ):
                    continue
                taken.append((m.start(), m.end()))
                raw = m.group(0).strip()
                target = (m.group(1) or "").strip() if m.groups() else ""
                sub = _sub_selector(ref_type, raw, m)
                ctx = _sentence_around(text, m.start(), m.end())
                out.append(
                    DetectedRef(raw, ref_type, target, ln.page, ln.line, sub_selector=sub, context=ctx)
                )
    return sorted(out, key=lambda r: (r.page, r.line))


def _from_parsing(lines: Sequence[EvidenceLine]) -> list[DetectedRef] | None:
    """The parsing brick's extractor, when it exists and finds something; else None."""
    try:
        import pandas as pd

        from docintel.parsing.crossrefs import extract_references
    except ImportError:
        return None
    frame = pd.DataFrame(
        [{"doc_id": "", "page": ln.page, "line": ln.line, "text": ln.text, "role": ln.role} for ln in lines]
    )
    try:
        rows = extract_references(frame, "")
    except Exception as exc:  # another brick's bug must not break answering; say so in the log
        log.warning("parsing.crossrefs.extract_references failed (%s); using built-in patterns", exc)
        return None
    if rows is None or len(rows) == 0:
        return None
    out = []
    for r in rows.itertuples(index=False):
        ref_type = str(getattr(r, "ref_type", "unknown") or "unknown")
        out.append(
            DetectedRef(
                raw_text=str(r.anchor_text)[:200],
                ref_type=ref_type if ref_type in _REF_TYPES else "unknown",
                target=str(getattr(r, "ref_target", "") or ""),
                page=int(r.origin_page),
                line=int(r.origin_line),
                sub_selector=str(getattr(r, "sub_selector", "") or ""),
                external=ref_type == "external",
            )
        )
    return out


def detect_references(lines: Sequence[EvidenceLine]) -> list[DetectedRef]:
    """References written in ``lines``: the parsing extractor's rows plus built-in externals,
    or the built-in patterns alone when the extractor is missing or finds nothing."""
    parsed = _from_parsing(lines)
    if parsed is None:
        return _builtin(lines)
    externals = _builtin(lines, internal=False)
    seen = {(r.page, r.line, normalize(r.raw_text)) for r in parsed}
    extra = [r for r in externals if (r.page, r.line, normalize(r.raw_text)) not in seen]
    return sorted([r for r in parsed if not r.external] + extra + [r for r in parsed if r.external],
                  key=lambda r: (r.page, r.line))  # fmt: skip


def detect_conditions(lines: Sequence[EvidenceLine]) -> list[DetectedCondition]:
    """Conditional clauses ('applies only if ...', 'provided that ...', 'unless ...')."""
    out: list[DetectedCondition] = []
    for run in _runs(lines):
        text, starts = _joined(run)
        for m in _CONDITION.finditer(text):
            ln = _line_at(run, starts, m.start())
            clause = m.group(0).strip(" ,")
            if len(clause.split()) >= 3:
                out.append(DetectedCondition(clause[:300], ln.page, ln.line))
    return out


def ref_key(raw_text: str) -> tuple[str, str] | None:
    """(ref_type, target) of a reference written alone, e.g. 'Table 3 row (E)' -> ('table', '3')."""
    probe = EvidenceLine(page=1, line=1, text=f"see {raw_text}")
    found = _builtin([probe])
    if not found:
        return None
    r = found[0]
    return ("external", normalize(r.target)) if r.external else (r.ref_type, normalize(r.target))


def _object_present(ref: DetectedRef, lines: list[EvidenceLine]) -> bool:
    """Whether the evidence holds the target itself: a caption, heading or bibliography entry."""
    t = re.escape(ref.target)
    if not ref.target:
        return False
    pats = {
        "table": rf"^\s*(?:Table|TABLE)\s+{t}\s*[:.]",
        "figure": rf"^\s*(?:Figure|FIGURE|Fig\.)\s+{t}\s*[:.]",
        "bib": rf"^\s*\[{t}\]",
        "appendix": rf"^\s*(?:Appendix|APPENDIX)\s+{t}\b",
        "annex": rf"^\s*(?:Annex|ANNEX)\s+{t}\b",
        "equation": rf"\({t}\)\s*$",
        "clause": rf"^\s*{re.escape(ref.target.split(')')[0] + ')')}\s",
        "section": rf"^\s*(?:Section\s+)?{t}\.?(?:\s+[A-Z]|\s*$)",
        "definition": rf"^\s*(?:Section\s+)?{t}\.?(?:\s+[A-Z]|\s*$)",
    }
    pat = pats.get(ref.ref_type)
    if pat is None:
        return False
    rx = re.compile(pat)
    for ln in lines:
        text = nfkc(ln.text)
        if (
            ref.ref_type in ("section", "definition")
            and ln.role not in ("heading", "title")
            and len(text) > 90
        ):
            continue
        if rx.search(text):
            return True
    return False


def target_in_evidence(ref: DetectedRef, passages: Sequence[Passage]) -> bool:
    """True when following ``ref`` would add nothing: a passage was already pulled in for it,
    or the evidence already contains its target (caption, heading, bibliography entry, page)."""
    key = ("external", normalize(ref.target)) if ref.external else (ref.ref_type, normalize(ref.target))
    for p in passages:
        if p.retrieved_via in ("reference", "definition"):
            if p.referenced_from and tuple(p.referenced_from) == (ref.page, ref.line):
                return True
            if p.reference_text and (
                normalize(p.reference_text) == normalize(ref.raw_text) or ref_key(p.reference_text) == key
            ):
                return True
    if ref.ref_type == "page" and ref.target.isdigit():
        return any(p.page == int(ref.target) for p in passages)
    all_lines = [ln for p in passages for ln in p.lines]
    return _object_present(ref, all_lines)
