"""Which pointers of the first-hop evidence the offline backend follows, beyond the lines it
quotes: "See Appendix A for ..." directives in the used window's section, section pointers a
few lines past the window, and not a bare "(Table 5)" after a value the sentence states.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from docintel.generation.text import nfkc
from docintel.schema.evidence import EvidenceLine, Passage
from docintel.schema.kinds import HEADING_ROLES, PULLED_VIA

PULLED = PULLED_VIA


@dataclass
class Piece:
    """One used window: its lines, the text it adds to the answer, the line to quote."""

    passage: Passage
    lines: list[EvidenceLine]
    text: str
    quote_line: EvidenceLine
    info: dict = field(default_factory=dict)


#: A sentence that sends the reader elsewhere: "See Appendix A for the complete listing",
#: "(see Section 3)", "Refer to Table 2", "For details, see ...".
_DIRECTIVE = re.compile(
    r"(?:^|[.;:(]\s*|\bfor\s+[\w\s,-]{1,40}?,?\s*)(?:see|refer\s+to|consult)\s+(?:also\s+)?\S", re.I
)


def _primary_windows(pieces: list[Piece]):
    """Each primary window's passage lines and the window's first and last index in them."""
    for pc in pieces:
        if pc.passage.retrieved_via in PULLED:
            continue
        lines = pc.passage.lines
        keys = [(ln.page, ln.line) for ln in lines]
        lo = keys.index((pc.lines[0].page, pc.lines[0].line))
        hi = keys.index((pc.lines[-1].page, pc.lines[-1].line))
        yield lines, lo, hi


def directives_in_section(pieces: list[Piece]) -> list[EvidenceLine]:
    """Lines of a used primary window's passage that hold a directive pointer
    (:data:`_DIRECTIVE`) with no heading between them and the window: the section itself says
    its answer goes on there. Plain mentions ("as shown in Figure 1") are not followed."""
    out: list[EvidenceLine] = []
    for lines, lo, hi in _primary_windows(pieces):
        for i, ln in enumerate(lines):
            if lo <= i <= hi or not _DIRECTIVE.search(ln.text):
                continue
            between = lines[i + 1 : lo + 1] if i < lo else lines[hi + 1 : i + 1]
            if not any(b.role in HEADING_ROLES for b in between):
                out.append(ln)
    return out


#: Lines after a used primary window (pass 1; about two sentences of a narrow column) whose
#: section, appendix or clause pointers are
#: followed too: the paragraph goes on past the window ("... Despite its simplicity, we
#: demonstrate in Section 5.1 that ..."). Figures, tables and bibliography entries mentioned
#: there are not: they illustrate the paragraph more often than they continue the answer.
AROUND_AFTER = 8
AROUND_TYPES = frozenset({"section", "appendix", "annex", "clause"})


def after_windows(pieces: list[Piece], k: int) -> list[EvidenceLine]:
    out: list[EvidenceLine] = []
    for lines, _lo, hi in _primary_windows(pieces):
        for ln in lines[hi + 1 : hi + 1 + k]:
            if ln.role in HEADING_ROLES:
                break
            out.append(ln)
    return out


#: "3.57% top-5 error on the test set (Table 5)": a value, then a bare parenthesized label.
_STATED_VALUE = re.compile(r"\d(?:[\d.,]*\d)?\s*%?[^()\d]{0,60}\(\s*$")


def cites_a_stated_value(r, ln: EvidenceLine | None) -> bool:
    """A bare "(Table 5)" or "(Fig. 3)" right after a value the sentence states is the value's
    source, already quoted: not a pointer to follow. "(see Table 3 row (E))", "shown in
    Table 6" or a table cited with no value before it still are."""
    if ln is None or r.ref_type not in ("table", "figure") or r.sub_selector:
        return False
    text = nfkc(ln.text)
    pos = text.find(r.raw_text)
    if pos <= 0 or text[pos + len(r.raw_text) :].lstrip()[:1] != ")":
        return False
    return bool(_STATED_VALUE.search(text[:pos]))
