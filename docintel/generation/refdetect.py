"""Find references and conditional clauses in evidence lines, for the offline backend and the validator.

The reference grammar is applied by the kernel (``docintel.refscan``, one scan per line per
ask); this module turns its finds into ``DetectedRef`` for the offline backend and the
validator, and finds conditional clauses.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass

from docintel import refscan
from docintel.generation.text import nfkc, normalize
from docintel.schema.evidence import EvidenceLine, Passage
from docintel.schema.kinds import HEADING_ROLES, PULLED_VIA, REF_TYPES, UNSCANNED_ROLES

log = logging.getLogger(__name__)

_REF_TYPES = set(REF_TYPES)


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


def _sentence_around(text: str, start: int, end: int) -> str:
    left = max(text.rfind(". ", 0, start), text.rfind("; ", 0, start))
    right_candidates = [i for i in (text.find(". ", end), text.find("; ", end)) if i >= 0]
    right = min(right_candidates) + 1 if right_candidates else len(text)
    return text[left + 2 if left >= 0 else 0 : right].strip()[:400]


def detect_references(lines: Sequence[EvidenceLine]) -> list[DetectedRef]:
    """References written in ``lines``, found by the parsing brick's extractor (one pattern
    table for the whole product: ``docintel.parsing.refpatterns``). A caption or heading that
    names its own object ("Table 3: ...") is the object, not a reference to it."""
    usable = [ln for ln in lines if ln.role not in UNSCANNED_ROLES]
    if not usable:
        return []
    by_key = {(ln.page, ln.line): ln for ln in usable}
    out = []
    for r in refscan.references_in(usable):
        ln = by_key[(r.page, r.line)]
        raw = str(r.raw_text)[:200]
        ref_type = str(r.ref_type or "unknown")
        if _names_itself(ln, raw):
            continue
        text = nfkc(ln.text)
        pos = max(text.find(raw), 0)
        out.append(
            DetectedRef(
                raw_text=raw,
                ref_type=ref_type if ref_type in _REF_TYPES else "unknown",
                target=str(r.target) if isinstance(r.target, str) else "",
                page=ln.page,
                line=ln.line,
                sub_selector=str(r.sub_selector) if isinstance(r.sub_selector, str) else "",
                external=ref_type == "external",
                context=_sentence_around(text, pos, pos + len(raw)),
            )
        )
    return sorted(out, key=lambda r: (r.page, r.line))


def _names_itself(ln: EvidenceLine, raw: str) -> bool:
    """'Table 3: Variations...' opening a caption, or a heading titled 'Appendix B: Glossary',
    is the object itself. A heading that is only a label ('Clause 5.6' over a drafting note)
    names a provision elsewhere: the loop's triage drops it when its target holds the heading."""
    text = nfkc(ln.text).lstrip()
    return (
        ln.role in ("caption", "title")
        and text.startswith(raw.strip())
        or bool(re.match(re.escape(raw.strip()) + r"\s*[:.]\s", text) and raw.split()[0][:1].isupper())
    )


#: An author-year citation as written inside parentheses: "Hendrycks and Gimpel, 2016",
#: "Peters et al., 2018a", "Vaswani 2017": the first author's surname and the year.
AUTHOR_YEAR = re.compile(
    r"^\s*(?:e\.g\.,?\s*|see\s+|cf\.\s*)?(?P<name>[A-Z][^\W\d_]+(?:[-'][^\W\d_]+)?)"
    r"(?:\s+(?:and|&)\s+[A-Z][^\W\d_]+|\s+et\s+al\.?)?,?\s+(?P<year>(?:19|20)\d{2})[a-z]?\s*$"
)
_PARENS = re.compile(r"\(([^()]{4,300})\)")


def detect_author_year(lines: Sequence[EvidenceLine]) -> list[DetectedRef]:
    """Author-year citations inside parentheses ("(Hendrycks and Gimpel, 2016)", each part of
    "(Peters et al., 2018a; Radford et al., 2018)"), also across a line break, as ``bib``
    references; the reference grammar reads bracketed keys only."""
    out: list[DetectedRef] = []
    for run in _runs([ln for ln in lines if ln.role not in UNSCANNED_ROLES]):
        text, starts = _joined(run)
        for m in _PARENS.finditer(text):
            pos = m.start(1)
            for part in m.group(1).split(";"):
                cite = AUTHOR_YEAR.match(part)
                if cite:
                    ln = _line_at(run, starts, pos)
                    raw = part.strip()
                    out.append(DetectedRef(raw, "bib", f"{cite['name']} {cite['year']}", ln.page, ln.line,
                                           context=_sentence_around(text, m.start(), m.end())))  # fmt: skip
                pos += len(part) + 1
    return out


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
    ref_type, target, _ = refscan.classify(raw_text)
    if not ref_type or ref_type == "unknown":
        return None
    return (ref_type, normalize(target or ""))


def probe(raw_text: str, page: int, line: int) -> DetectedRef | None:
    """The reference written alone, as detected ("Section 3(a)": section 3, sub-selector
    "paragraph (a)"), for :func:`target_in_evidence`; None when it names no internal target."""
    ref_type, target, sub = refscan.classify(raw_text)
    if not ref_type or ref_type in ("unknown", "external"):
        return None
    return DetectedRef(raw_text, ref_type, normalize(target or ""), page, line, sub_selector=sub or "")


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
    if ref.ref_type in _LABELLED and _BARE_LABEL.match(ref.target):
        return False  # "Paragraph A", "paragraph (e)": every clause has an "A."; the resolver decides
    if ref.ref_type in _LABELLED and ref.sub_selector:
        # "Section 3(a)": a line "3. If requested ..." is some list's 3, not 3's (a); the section's
        # heading line followed by its "(a)" / "a." item is
        head = rf"^\s*(?:(?i:section)\s+|\u00a7\s*)?{t}\.?(?:(?:\s*[\u2013\u2014:-])?\s+[A-Z]|\s*$)"
        return _sub_item_present(re.compile(head), ref.sub_selector, lines)
    rx = re.compile(pat)
    for ln in lines:
        text = nfkc(ln.text)
        if ref.ref_type in ("section", "definition") and ln.role not in HEADING_ROLES and len(text) > 90:
            continue
        if ref.ref_type in _CAPTIONED and ln.role == "body":
            continue  # a sentence opening with "Table 6. In this table ..." is prose about it
        if rx.search(text):
            return True
    return False


def _sub_item_present(head: re.Pattern, sub: str, lines: list[EvidenceLine]) -> bool:
    """Whether a heading line matching ``head`` ("3 Definitions" as a heading, "Section 3 –
    License Conditions" in any role) is followed, before the next heading and within one page run of the
    evidence, by a line opening with each label of ``sub`` in turn ("paragraph (a)(ii)": an
    "(a)" or "a." line, then an "(ii)" one)."""
    labels = re.findall(r"\(([A-Za-z0-9]{1,4})\)", sub)
    if not labels:
        return False
    for i, ln in enumerate(lines):
        text = nfkc(ln.text)
        if not head.search(text) or (ln.role not in HEADING_ROLES and not _NAMED_HEAD.match(text)):
            continue  # "3. If requested ..." in the body: a list's item; "Section 3 – ..." is the heading
        want, prev = 0, ln
        for nxt in lines[i + 1 :]:
            if (nxt.page, nxt.line) <= (prev.page, prev.line) or nxt.page > prev.page + 1:
                break  # another passage: the evidence is no longer the section's own text
            is_head = nxt.role in HEADING_ROLES or _NAMED_HEAD.match(nfkc(nxt.text))
            if is_head and not _opens_with(nxt.text, labels[want]):
                break  # the next section
            if _opens_with(nxt.text, labels[want]):
                want += 1
                if want == len(labels):
                    return True
            prev = nxt
    return False


#: A short body line that names itself a section ("Section 3 – License Conditions."): a heading
#: the parser set in the body font.
_NAMED_HEAD = re.compile(r"^\s*(?:(?i:section)\s+|\u00a7\s*)\S.{0,80}$")


def _opens_with(text: str, label: str) -> bool:
    """The line opens with item ``label``: "(a) ...", "a. ...", "a) ..."."""
    lab = re.escape(label)
    return re.match(rf"^\s*(?:\({lab}\)|{lab}[.)])(?:\s|$)", nfkc(text)) is not None


#: A provision label that repeats under every parent (one letter, or a parenthesized label):
#: an "A." line in the evidence is some clause's A, not necessarily the one pointed at, so
#: whether the target is already there is left to the loop's resolver (its lines, not its text).
_BARE_LABEL = re.compile(r"^(?:[A-Za-z]|\([A-Za-z0-9]{1,4}\))$")
_LABELLED = frozenset({"section", "clause", "definition"})

#: Object types present in the evidence only through their caption or heading line.
_CAPTIONED = frozenset({"table", "figure", "appendix", "annex"})


def target_in_evidence(ref: DetectedRef, passages: Sequence[Passage]) -> bool:
    """True when following ``ref`` would add nothing: a passage was already pulled in for it,
    or the evidence already contains its target (caption, heading, bibliography entry, page)."""
    key = ("external", normalize(ref.target)) if ref.external else (ref.ref_type, normalize(ref.target))
    for p in passages:
        if p.retrieved_via in PULLED_VIA or p.retrieved_via == "scope":  # "scope": the question named it
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
