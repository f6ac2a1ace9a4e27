"""The offline answer's text: its pieces in order, then conditions, externals and pointers.

The answer field holds at most :data:`ANSWER_CHARS` characters. Its closing notes (conditions,
documents named outside the PDF, pointers not followed) are kept whole, and consecutive pieces
pulled in for one reference share one label ("From Section 5 (pages 6, 7; pulled in because
of ...): a ... b") instead of repeating it. The pieces share what is left (``fair_shares``):
each gets a floor first, then the rest goes to them in order, so a pulled-in target listed
after long first-hop windows is shortened, not cut off (the target is often the answer).
"""

from __future__ import annotations

import re

from docintel.generation.offline.pointers import Piece
from docintel.generation.text import clip
from docintel.schema.kinds import PULLED_VIA

#: The answer field's limit (``ReferenceAwareAnswer.answer``).
ANSWER_CHARS = 4000
#: The longest text one piece gives.
PIECE_CHARS = 1200
#: What joins two pieces of one reference.
JOIN = " ... "


def fair_shares(lengths: list[int], budget: int, order: list[int] | None = None) -> list[int]:
    """Characters each text may keep so the total fits ``budget``: every text is first given
    up to a floor (half an equal share), then what is left goes to the texts in ``order`` (by
    default their own), so the first hop and the first targets stay whole and a later target is
    shortened, never dropped."""
    budget = max(0, budget)
    if sum(lengths) <= budget or not lengths:
        return list(lengths)
    floor = budget // (2 * len(lengths))
    shares = [min(n, floor) for n in lengths]
    left = budget - sum(shares)
    for i in order if order is not None else range(len(lengths)):
        n = lengths[i]
        more = min(n - shares[i], left)
        shares[i] += more
        left -= more
    return shares


def _source(pc: Piece) -> tuple:
    """What a pulled-in piece came from (() for the first hop's own windows)."""
    p = pc.passage
    if p.retrieved_via not in PULLED_VIA:
        return ()
    return (p.retrieved_via, p.reference_text, tuple(p.referenced_from or ()))


def _label(pc: Piece, pages: list[int]) -> str:
    """The label a run of pieces pulled in for one reference opens with."""
    p = pc.passage
    what = (
        "Definition"
        if p.retrieved_via == "definition"
        else f"From {p.reference_text or 'the referenced text'}"
    )
    where = f"page {pages[0]}" if len(pages) == 1 else "pages " + ", ".join(map(str, pages))
    why = ""
    if p.reference_text and p.referenced_from:
        page, line = p.referenced_from
        why = f"; pulled in because of '{p.reference_text}' on page {page}, line {line}"
    return f"{what} ({where}{why}): "


def _notes(pieces: list[Piece], conditions: list[str], externals: list, pending: list) -> list[str]:
    notes = [f"Condition: {c}." for c in conditions]
    if externals:
        notes.append(_outside(e.name for e in externals))
    # a pointer written in a pulled-in target (not in the first hop's lines) is the next hop's
    primary = {(ln.page, ln.line) for pc in pieces if pc.passage.retrieved_via not in PULLED_VIA
               for ln in pc.passage.lines}  # fmt: skip
    pulled = {(ln.page, ln.line) for pc in pieces if pc.passage.retrieved_via in PULLED_VIA
              for ln in pc.passage.lines}  # fmt: skip
    nested = [r for r in pending if (r.origin_page, r.origin_line) in pulled - primary]
    first = [r for r in pending if r not in nested]

    if first:
        notes.append(f"{_FIRST[0]}{_listed(first)}{_FIRST[1]}")
    if nested:
        notes.append(f"{_NESTED[0]}{_listed(nested)}{_NESTED[1]}")
    return notes


#: The note naming documents outside the PDF opens with this.
_OUTSIDE = "Relies on documents outside this PDF (named, not fetched): "


def _outside(names) -> str:
    return _OUTSIDE + "; ".join(names) + "."


def unname(text: str, listed: list[str], dropped: set[str]) -> str:
    """``text`` with the names in ``dropped`` taken out of its note on documents outside the PDF
    (a note left with none is dropped). The note was written from the first names of ``listed``
    (the answer's ``external_references`` as generated; a later check may have added more),
    before the loop's triage found some of them to be the document's own ids (an SP number its
    title block prints): without this the text would name the document as an outside one while
    its ``external_references`` no longer do. Matched as written, never parsed: a name may hold
    '; ' or '.'; a note the clip cut is left as it is."""
    for k in range(len(listed), 0, -1):
        note = _outside(listed[:k])
        at = text.find(note)
        end = at + len(note)
        if at < 0 or (end < len(text) and text[end] != "\n") or (at and text[at - 1] != "\n"):
            continue
        kept = [n for n in listed[:k] if n not in dropped]
        if len(kept) == k:
            return text
        if kept:
            return text[:at] + _outside(kept) + text[end:]
        return text[: at - 1] + text[end:] if at else text[end + 1 :]  # the note and its line break
    return text


#: The two notes on pointers not followed, as (opening, close) around the listed pointers.
_FIRST = ("Not yet followed: ", "; the complete answer may be there.")
_NESTED = ("Further pointers in the pulled-in text, not followed: ", ".")

#: The note the loop adds when the pass-2 budget cut a followed target (``completeness.earn``).
BUDGET_NOTE = "Not given in full (budget): "
#: How the closing notes open (each is one line after the quoted text).
NOTE_OPENINGS = ("Condition: ", _OUTSIDE, _FIRST[0], _NESTED[0], BUDGET_NOTE)


#: :func:`fit` keeps the notes whole only while the quoted text keeps at least this share of the
#: limit (a quarter: an answer is its quote first; notes that would leave less are clipped with it)
MIN_QUOTED_SHARE = 4


def fit(text: str, limit: int = ANSWER_CHARS) -> str:
    """``text`` in ``limit`` characters with its closing notes (the trailing lines that open
    with :data:`NOTE_OPENINGS`) kept whole: the quoted text before them is clipped instead. A
    label put before a composed answer (``--fallback offline``) or a note put after it (the
    budget's) would otherwise cut the notes off the end: the names of outside documents, the
    pointers not followed, the budget note itself."""
    if len(text) <= limit:
        return text
    lines = text.split("\n")
    k = len(lines)
    while k > 1 and lines[k - 1].startswith(NOTE_OPENINGS):
        k -= 1
    notes = "\n".join(lines[k:])
    room = limit - len(notes) - 1
    if not notes or room < limit // MIN_QUOTED_SHARE:  # no notes, or notes leaving too little quote
        return clip(text, limit)
    return clip("\n".join(lines[:k]), room) + "\n" + notes


def _entry(ref) -> str:
    return f"{ref.raw_text} (page {ref.origin_page}, line {ref.origin_line})"


def _listed(refs: list) -> str:
    """The pointers once each ("figures 1 through 9" is one pointer with nine targets)."""
    return "; ".join(dict.fromkeys(_entry(r) for r in refs))


def restate(text: str, settled: list) -> str:
    """``text`` with the pointers in ``settled`` (references the loop's triage no longer holds
    pending: their target is in the evidence, another document's, or the pointer names itself)
    taken out of its notes on pointers not followed; a note left with none is dropped. The
    notes were written before the triage ran; without this the answer would list as "not yet
    followed" a pointer whose target it already holds."""
    gone = {_entry(r) for r in settled}
    for opening, close in (_FIRST, _NESTED):
        m = re.search(re.escape(opening) + f"((?:{_ENTRY})(?:; (?:{_ENTRY}))*)" + re.escape(close), text)
        if m is None:
            continue
        entries = re.findall(f"({_ENTRY})(?:; |$)", m.group(1))
        kept = [e for e in entries if e not in gone]
        if len(kept) == len(entries):
            continue
        at, end = m.span()
        if kept:
            text = f"{text[:at]}{opening}{'; '.join(kept)}{close}{text[end:]}"
        else:  # the whole note goes, with the line break before it
            text = text[: at - 1 if at and text[at - 1] == "\n" else at] + text[end:]
    return text


#: One listed pointer: its text, then where it is written.
_ENTRY = r".*?\(page \d+, line \d+\)"


def _tier(pc: Piece) -> int:
    """The first hop's windows (0), then the pulled-in targets (1), then a held appendix-like
    unit the first hop quotes for a pointer ("See Appendix A for the complete listing", with the
    appendix's page also retrieved): the loop pulled nothing for it, and when it pulled another
    target (the table asked for), that target keeps its text."""
    if _source(pc):
        return 1
    return 2 if pc.info.get("held") else 0


def _share_order(runs: list[list[Piece]]) -> list[int]:
    """The order the pieces (flattened) get what the floor leaves: the first hop's in order, then
    the pulled-in targets', the target whose pieces hold more of the question's terms first (a
    target pulled in for a pointer written in passing holds few: it should not keep the text the
    asked target loses), ties in order; a held unit's quote last (:func:`_tier`)."""
    flat = [(k, i, pc) for k, r in enumerate(runs) for i, pc in enumerate(r)]
    held = [len(set().union(*(set(pc.info.get("hits", [])) for pc in r)) - {"(pulled in)"}) for r in runs]
    idx = {(k, i): n for n, (k, i, _) in enumerate(flat)}
    return sorted(
        idx.values(),
        key=lambda n: (_tier(flat[n][2]), -held[flat[n][0]] if _source(flat[n][2]) else 0, n),
    )


def compose(pieces: list[Piece], conditions: list[str], externals: list, pending: list) -> str:
    """The answer text (see the module docstring)."""
    notes = _notes(pieces, conditions, externals, pending)
    runs: list[list[Piece]] = []
    for pc in pieces:
        if runs and _source(pc) and _source(pc) == _source(runs[-1][0]):
            runs[-1].append(pc)
        else:
            runs.append([pc])
    labels = [_label(r[0], sorted({pc.lines[0].page for pc in r})) if _source(r[0]) else "" for r in runs]
    texts = [[clip(pc.text, PIECE_CHARS) for pc in r] for r in runs]
    flat = [t for ts in texts for t in ts]
    fixed = sum(len(n) + 1 for n in notes) + sum(len(lb) + 1 for lb in labels) + len(JOIN) * len(flat)
    shares = iter(fair_shares([len(t) for t in flat], ANSWER_CHARS - fixed, _share_order(runs)))
    parts = []
    for label, ts in zip(labels, texts, strict=True):
        kept = []
        for t in ts:
            share = next(shares)
            kept.append(t if len(t) <= share else clip(t, share))
        parts.append(label + JOIN.join(k for k in kept if k))
    return clip("\n".join(p for p in parts + notes if p), ANSWER_CHARS)
