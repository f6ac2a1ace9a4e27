"""Check an answer against the evidence before anyone sees it.

The loop calls :func:`check_generation` once per pass, on whatever the backend returned. A citation survives only if its quote occurs in
the lines it cites (after NFKC, line-break de-hyphenation, whitespace collapse and case
folding); a quote found elsewhere in the evidence is snapped to the lines where it occurs;
anything else is dropped. Each fix is reported as a problem string for the trace.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from docintel.generation import refdetect
from docintel.generation.safety import merge_detected_references
from docintel.generation.text import join_lines, nfkc, normalize
from docintel.schema.answer import Citation, ReferenceAwareAnswer
from docintel.schema.evidence import EvidenceLine, ParsedQuestion, Passage
from docintel.schema.kinds import PULLED_VIA
from docintel.schema.loop import CallInfo, Generation

_MAX_SPAN = 12  # a snapped quote may cover at most this many consecutive lines
_ELLIPSIS = re.compile(r"\s*(?:\.\.\.|\u2026)\s*")


class _Evidence:
    """The evidence lines indexed by (page, line), with the passage each came from."""

    def __init__(self, passages: list[Passage]):
        self.where: dict[tuple[int, int], tuple[EvidenceLine, Passage]] = {}
        for p in passages:
            for ln in p.lines:
                self.where.setdefault((ln.page, ln.line), (ln, p))
        keys = sorted(self.where)
        self.runs: list[list[EvidenceLine]] = []
        self._run_text: dict[int, tuple[bool, str]] = {}
        self._forms: dict[int, tuple[list[str], list[bool]]] = {}
        self._pieces: dict[tuple[int, int, int], str] = {}
        for k in keys:
            ln = self.where[k][0]
            if self.runs and self.runs[-1][-1].page == ln.page and self.runs[-1][-1].line == ln.line - 1:
                self.runs[-1].append(ln)
            else:
                self.runs.append([ln])

    def lines(self, page: int, a: int, b: int) -> list[EvidenceLine]:
        return [self.where[(page, i)][0] for i in range(a, b + 1) if (page, i) in self.where]

    def _may_hold(self, run: list[EvidenceLine], needle: str) -> bool:
        """False only when no window of ``run`` can hold ``needle``: the run's whole text lacks
        it and no join is ``glued`` (a line ending in a hyphen, with any blank lines after it, is
        normalised whole with what follows). Other lines are joined with a space (no break hyphen
        is merged across such a join), so every window's comparison form is a substring of the
        run's and a needle missing from the run is missing from each window."""
        key = id(run)
        hit = self._run_text.get(key)
        if hit is None:
            safe = not any(self._line_forms(run)[1][:-1])
            hit = self._run_text[key] = (safe, self._window(run, 0, len(run)) if safe else "")
        return not hit[0] or needle in hit[1]

    def _line_forms(self, run: list[EvidenceLine]) -> tuple[list[str], list[bool]]:
        """Each line's comparison form alone, and whether the join after it is glued: the line
        ends in a hyphen, or its form is blank and the join before it is glued (join_lines and
        the break-hyphen rule skip a blank line). Once per run."""
        key = id(run)
        hit = self._forms.get(key)
        if hit is None:
            forms = [_line_form(ln.text) for ln in run]
            glued: list[bool] = []
            for k, ln in enumerate(run):
                glued.append(_ends_in_hyphen(ln.text) or (not forms[k] and k > 0 and glued[k - 1]))
            hit = self._forms[key] = (forms, glued)
        return hit

    def _window(self, run: list[EvidenceLine], i: int, j: int) -> str:
        """``normalize(join_lines(...))`` of ``run[i:j]``. Across a join that is not glued the
        lines are joined with one space and nothing of the comparison form reaches over it (NFKC
        does not compose across a space, no break hyphen is there to merge, the space and any
        blank around it collapse into one): the window is its glued pieces' forms (a line's own,
        or a piece's computed whole, kept per run), joined with a space, blank ones left out."""
        forms, glued = self._line_forms(run)
        parts: list[str] = []
        a = i
        for k in range(i, j):
            if k < j - 1 and glued[k]:
                continue
            part = forms[a] if a == k else self._piece(run, a, k + 1)
            if part:
                parts.append(part)
            a = k + 1
        return " ".join(parts)

    def _piece(self, run: list[EvidenceLine], a: int, b: int) -> str:
        key = (id(run), a, b)
        hit = self._pieces.get(key)
        if hit is None:
            hit = self._pieces[key] = normalize(join_lines(x.text for x in run[a:b]))
        return hit

    def find(self, needle: str) -> tuple[int, int, int] | None:
        """Smallest run of consecutive lines whose text contains ``needle`` (normalized)."""
        if not needle:
            return None

        for run in self.runs:
            if not self._may_hold(run, needle):
                continue

            def has(i: int, j: int, run=run) -> bool:
                return needle in self._window(run, i, j)

            for i in range(len(run)):
                j_max = min(len(run), i + _MAX_SPAN)
                if not has(i, j_max):
                    continue
                j = next(j for j in range(i + 1, j_max + 1) if has(i, j))
                while i + 1 < j and has(i + 1, j):  # the first window may start too early
                    i += 1
                return run[i].page, run[i].line, run[j - 1].line
        return None


_HYPHENS = ("-", "\u00ad", "\u2010")


@lru_cache(maxsize=8192)
def _line_form(text: str) -> str:
    """One evidence line's comparison form, as a window of that line alone has it (a pure
    function of the text: the same lines come back in every pass and every ask on the page)."""
    return normalize(join_lines([text]))


def _ends_in_hyphen(text: str) -> bool:
    """Whether a line ends in a hyphen as written or once in NFKC (what a join may merge)."""
    raw = (text or "").strip()
    return raw.endswith(_HYPHENS) or nfkc(raw).strip().endswith(_HYPHENS)


def _segments(quote: str) -> list[str]:
    """A quote with '...' is checked piece by piece."""
    return [s for s in (normalize(x) for x in _ELLIPSIS.split(quote)) if s]


def _check(cit: Citation, ev: _Evidence, i: int, problems: list[str]) -> Citation | None:
    where = f"citation {i} (p{cit.page} l{cit.line_start}-{cit.line_end})"
    if cit.line_end < cit.line_start:
        cit = cit.model_copy(update={"line_start": cit.line_end, "line_end": cit.line_start})
        problems.append(f"{where}: line range reversed; swapped")
    cited = ev.lines(cit.page, cit.line_start, cit.line_end)
    segs = _segments(cit.quote)
    if cited and not segs:
        quote = cited[0].text.strip()[:600]
        problems.append(f"{where}: empty quote; filled with the first cited line")
        return cit.model_copy(update={"quote": quote})
    text = normalize(join_lines(x.text for x in cited)) if cited else ""
    # a quote of one printed line ending "architec-" is verbatim even though the joined lines
    # read "architectures": its break hyphen is compared without the hyphen
    if cited and all(s in text or (s.endswith("-") and s[:-1] in text) for s in segs):
        return cit
    hit = ev.find(max(segs, key=len)) if segs else None
    if hit is None:
        reason = "cited lines are not in the evidence" if not cited else "quote not found in the cited lines"
        problems.append(f"{where}: {reason}, and the quote occurs nowhere in the evidence; dropped")
        return None
    page, a, b = hit
    problems.append(f"{where}: quote not in the cited lines; snapped to p{page} l{a}-{b}")
    return cit.model_copy(update={"page": page, "line_start": a, "line_end": b})


def _provenance(cit: Citation, ev: _Evidence, i: int, problems: list[str]) -> Citation:
    """The cited lines' passage decides retrieved_via / referenced_from / reference_text."""
    first = next(((ln, p) for (pg, li), (ln, p) in ev.where.items()
                  if pg == cit.page and cit.line_start <= li <= cit.line_end), None)  # fmt: skip
    if first is None:
        return cit
    p = first[1]
    update: dict = {}
    if not cit.doc_id and p.doc_id:
        update["doc_id"] = p.doc_id
    if cit.retrieved_via != p.retrieved_via:
        problems.append(f"citation {i}: retrieved_via {cit.retrieved_via!r} corrected to {p.retrieved_via!r}")
        update["retrieved_via"] = p.retrieved_via
    if p.retrieved_via in PULLED_VIA:
        update["referenced_from"] = p.referenced_from
        update["reference_text"] = p.reference_text
    return cit.model_copy(update=update) if update else cit


def _snap_origin(raw: str, page: int, line: int, ev: _Evidence) -> tuple[int, int] | None:
    if (page, line) in ev.where:
        return page, line
    hit = ev.find(normalize(raw))
    return (hit[0], hit[1]) if hit else None


def validate_answer(
    answer: ReferenceAwareAnswer, passages: list[Passage]
) -> tuple[ReferenceAwareAnswer, list[str]]:
    """Return the answer with invalid citations fixed or dropped, and the list of problems."""
    ev = _Evidence(passages)
    problems: list[str] = []
    citations: list[Citation] = []
    seen: set[tuple] = set()
    for i, cit in enumerate(answer.citations):
        fixed = _check(cit, ev, i, problems)
        if fixed is None:
            continue
        fixed = _provenance(fixed, ev, i, problems)
        key = (fixed.page, fixed.line_start, fixed.line_end, normalize(fixed.quote))
        if key not in seen:
            seen.add(key)
            citations.append(fixed)

    pending = []
    dropped_present = 0
    for r in answer.pending_references:
        origin = _snap_origin(r.raw_text, r.origin_page, r.origin_line, ev)
        if origin is None:
            problems.append(
                f"pending reference {r.raw_text!r}: origin p{r.origin_page} l{r.origin_line} not in the evidence"
            )
        elif origin != (r.origin_page, r.origin_line):
            problems.append(f"pending reference {r.raw_text!r}: origin moved to p{origin[0]} l{origin[1]}")
            r = r.model_copy(update={"origin_page": origin[0], "origin_line": origin[1]})
        probe = refdetect.probe(r.raw_text, r.origin_page, r.origin_line)  # with its sub-selector
        if probe is not None and refdetect.target_in_evidence(probe, passages):
            problems.append(
                f"pending reference {r.raw_text!r}: its target is already in the evidence; dropped"
            )
            dropped_present += 1
            continue
        pending.append(r)

    externals = []
    for e in answer.external_references:
        origin = _snap_origin(e.name, e.origin_page, e.origin_line, ev)
        if origin is not None and origin != (e.origin_page, e.origin_line):
            e = e.model_copy(update={"origin_page": origin[0], "origin_line": origin[1]})
        externals.append(e)

    completeness = answer.answer_completeness
    if pending and completeness == "complete":
        completeness = "references_unresolved"
        problems.append(
            "answer_completeness 'complete' with pending references; set to 'references_unresolved'"
        )
    elif not pending and completeness == "references_unresolved":
        completeness = "complete" if dropped_present else "partial"
        problems.append(
            f"answer_completeness 'references_unresolved' without pending references; set to {completeness!r}"
        )
    if answer.answer_completeness != "not_found" and answer.citations and not citations:
        problems.append("no citation survived validation")

    fixed_answer = answer.model_copy(
        update={
            "citations": citations,
            "pending_references": pending,
            "external_references": externals,
            "answer_completeness": completeness,
        }  # fmt: skip
    )
    return fixed_answer, problems


@dataclass
class CheckedAnswer:
    """An answer after the loop's one check: validated, with the detector's additions."""

    answer: ReferenceAwareAnswer
    problems: list[str]
    #: What the reference detector added (``{"pending": [...], "external": [...]}``), or None
    #: when the backend's own reference flags are trusted (offline, scripted).
    detector_references: dict | None = None
    #: The backend's record of the call, with the detector's additions noted.
    info: CallInfo | None = None


def check_generation(
    generation: Generation, passages: list[Passage], question: ParsedQuestion | None = None
) -> CheckedAnswer:
    """Validate a backend's answer against ``passages`` (once, in the loop) and, for backends
    whose reference flags are unreliable, add the references the detector finds."""
    answer, problems = validate_answer(generation.answer, passages)
    added = None
    if generation.needs_reference_check:
        answer, added = merge_detected_references(answer, passages, question)
    info = generation.info
    if added is not None:
        info = info.model_copy(update={"details": {**info.details, "detector_references": added}})
    return CheckedAnswer(answer, problems, added, info)


def generate_checked(
    backend, question: ParsedQuestion, passages: list[Passage], *, pass_no: int = 1, instructions=()
) -> CheckedAnswer:
    """One pass as the loop runs it: ``backend.generate`` then :func:`check_generation`
    (for notebooks and tests that call a backend by hand)."""
    gen = backend.generate(question, passages, pass_no=pass_no, instructions=list(instructions))
    return check_generation(gen, passages, question)
