"""The ``offline`` backend: deterministic, extractive, no model.

It is the default when no endpoint is configured and what answer snapshots pin. It still fills
the typed fields honestly: the answer is built verbatim from the best evidence windows (see
``scoring.py`` for how lines score), pulled-in passages always contribute (table rows shown as
'column: value' pairs), and references in the lines it used whose targets are not in the
evidence become ``pending_references`` so the loop can follow them.
"""

from __future__ import annotations

import functools
import re

from docintel import __version__
from docintel.generation import refdetect
from docintel.generation.offline.answertype import typed_first
from docintel.generation.offline.compose import compose, restate, unname
from docintel.generation.offline.coverage import cover_window
from docintel.generation.offline.defining import definition_first
from docintel.generation.offline.heldtargets import held_target_windows
from docintel.generation.offline.pointers import (
    AROUND_AFTER,
    AROUND_TYPES,
    Piece,
    after_windows,
    cites_a_stated_value,
    directives_in_section,
)
from docintel.generation.offline.scoring import (
    Window,
    pick_windows,
    question_terms,
    read_as_pointed,
    score_lines,
)
from docintel.generation.offline.tablerows import is_table_passage, view_table
from docintel.generation.text import clip, content_stems, join_lines, normalize
from docintel.schema.answer import Citation, ExternalReference, PendingReference, ReferenceAwareAnswer
from docintel.schema.evidence import EvidenceLine, ParsedQuestion, Passage
from docintel.schema.kinds import HEADING_ROLES, PULLED_VIA
from docintel.schema.loop import INSTRUCTIONS, CallInfo, Generation, Instruction

PULLED = PULLED_VIA
# Bibliography pointers ('[9]') are only worth following when the question asks about sources;
# otherwise every cited sentence would trigger a second pass.
_WANTS_SOURCES = re.compile(
    r"\b(?:cite[sd]?|citing|citation|references?|referenced|sources?|bibliograph\w*)\b|"
    r"\b(?:which|what)\s+(?:\w+\s+){0,2}(?:papers?|publications?|documents?|standards?|works?|"
    r"regulations?|specifications?|reports?|stud(?:y|ies)|articles?)\b|"
    # attribution: whose method, who introduced it, according to whom
    r"\bwhose\b|\bwho\s+(?:first\s+)?(?:proposed|introduced|developed|invented|described)\b|\baccording\s+to\s+whom\b",
    re.I,
)


def asks_for_sources(question: str) -> bool:
    """Whether a question asks which source, publication or author says something."""
    return bool(_WANTS_SOURCES.search(question))


#: Lines of a pulled-in table (no row selected) given whole; a longer one is read by windows.
TABLE_WHOLE = 48
#: Lines a list answer quotes in all, shared by its passages (each gets at least half a window).
LIST_LINES = 40


@functools.lru_cache(maxsize=8192)
def _title_stems(title: str) -> frozenset[str]:
    """:func:`content_stems` of a toc title, kept: each brief of a 600-page toc has ~800 titles."""
    return frozenset(content_stems(title))


class OfflineBackend:
    """Extractive answers from the evidence; see the module docstring."""

    name = "offline"
    kind = "rules"

    def __init__(
        self,
        *,
        max_windows: int = 3,
        max_lines: int = 14,
        ref_windows: int = 3,
        ref_lines: int = 18,
        ref_whole: int = 20,
        **options: object,
    ) -> None:
        self.max_windows, self.max_lines = max_windows, max_lines
        self.ref_windows, self.ref_lines, self.ref_whole = ref_windows, ref_lines, ref_whole
        self.ignored_options = sorted(options)  # e.g. a model name given to every backend

    # -- protocol -------------------------------------------------------------------------
    def restate(self, text: str, settled: list) -> str:
        """This backend's answer text without the pointers the loop settled after it was written
        (:func:`docintel.generation.offline.compose.restate`)."""
        return restate(text, settled)

    def unname(self, text: str, listed: list[str], dropped: set[str]) -> str:
        """This backend's answer text without the outside documents the loop found to be the
        document itself (:func:`docintel.generation.offline.compose.unname`)."""
        return unname(text, listed, dropped)

    def generate(
        self,
        question: ParsedQuestion,
        passages: list[Passage],
        *,
        pass_no: int,
        instructions: list[Instruction],
    ) -> Generation:
        """Answer from ``passages`` only (deterministic)."""
        instr = set(instructions or [])
        if question.shape == "overview" and passages:
            return self._overview(passages, pass_no)
        terms = question_terms(question)
        grouped, weights = score_lines(passages, terms)
        primary = [i for i, p in enumerate(passages) if p.retrieved_via not in PULLED | {"scope"}]
        pulled = [i for i, p in enumerate(passages) if p.retrieved_via in PULLED]
        scoped = [i for i, p in enumerate(passages) if p.retrieved_via == "scope"]

        if question.shape == "list" and len(primary) > 1:
            windows = self._list_windows(grouped, primary)
        else:
            windows = pick_windows(
                grouped,
                primary,
                max_windows=self.max_windows,
                max_lines=self.max_lines,
                # a question asking for a value (a number, a span, a recurrence) is answered
                # by the sentence stating it, not by a list after it
                read_lists=question.answer_type is None and question.shape != "number",
            )
        # the defining sentence: in the first hop, else where the loop found the term defined
        defined = primary + [i for i in pulled if passages[i].retrieved_via == "definition"]
        windows = definition_first(
            question, grouped, defined, windows, max_windows=self.max_windows, max_lines=self.max_lines
        )
        # phrases repeat their words, so only word/number terms set how many hits are needed
        need = 1 if sum(t.kind in ("word", "number") for t in terms) <= 2 else 2
        windows = typed_first(
            question,
            grouped,
            primary,
            windows,
            max_windows=self.max_windows,
            max_lines=self.max_lines,
            need=need,
        )
        windows = held_target_windows(grouped, windows, primary)
        windows = cover_window(grouped, windows, weights, {t.key: t.kind for t in terms})
        pieces = [
            pc for pi in scoped for pc in self._pulled_pieces(passages, grouped, pi, terms)
        ]  # named: answers
        site = windows.pop(0).passage if windows and windows[0].passage in pulled else None
        if site is not None:  # the defining sentence is in a definition site: read it first, whole
            pieces += self._pulled_pieces(passages, grouped, site, terms)
        pieces += [self._window_piece(passages, grouped, w) for w in windows]
        for pi in pulled:
            if pi != site:
                pieces += self._pulled_pieces(passages, grouped, pi, terms)

        hits = set().union(*(set(pc.info.get("hits", [])) for pc in pieces)) if pieces else set()
        hits -= {t.key for t in terms if t.kind == "answer_type"}  # a duration alone finds no topic
        details = {
            "terms": weights,
            "windows": [pc.info for pc in pieces],
            "instructions": sorted(instr),
            "ignored_instructions": sorted(instr - set(INSTRUCTIONS)),
        }
        if not pieces or (len(hits) < need and not scoped):
            details["not_found"] = True
            info = CallInfo(backend=self.name, pass_no=pass_no, details=details)
            return Generation(answer=self._not_found(question, terms), info=info)
        info = CallInfo(backend=self.name, pass_no=pass_no, details=details)

        used = [ln for pc in pieces for ln in pc.lines]
        near = self._neighbours(passages, pieces, pass_no, 1)
        if pass_no == 1:  # a "See Appendix A for ..." directive in the paragraph of a used line
            near += directives_in_section(pieces)
            around = after_windows(pieces, AROUND_AFTER)
        else:
            around = []
        pending = self._pending(question, passages, used, near, around)
        ext_scope = (
            [ln for pc in pieces for ln in pc.passage.lines] if "name_external" in instr else used + near
        )
        externals = self._externals(ext_scope)
        cond_scope = (
            used + self._neighbours(passages, pieces, pass_no, 2) if "state_conditions" in instr else used
        )
        conditions = list(dict.fromkeys(c.text for c in refdetect.detect_conditions(cond_scope)))[:10]

        answer = ReferenceAwareAnswer(
            answer=compose(pieces, conditions, externals, pending),
            citations=_fair_citations([self._citations(pc) for pc in pieces], MAX_CITATIONS),
            pending_references=pending,
            external_references=externals,
            conditions=conditions,
            answer_completeness="references_unresolved" if pending else "complete",
        )
        return Generation(answer=answer, info=info)

    def _overview(self, passages: list[Passage], pass_no: int) -> Generation:
        """An overview answer: each part of the structure the evidence holds (title, summary,
        contents ...; the passage's note names it), in order, cited line by line. No pointer
        is followed: the question asks what the document is, not what it refers to."""
        parts: dict[str, list[str]] = {}
        listing: set[str] = set()
        citations: list[Citation] = []
        for p in passages:
            label = p.note or "Evidence"
            if all(ln.role in HEADING_ROLES for ln in p.lines) and len(p.lines) <= 3:
                listing.add(label)  # a heading standing alone is a contents entry
            parts.setdefault(label, []).append(join_lines(ln.text for ln in p.lines))
            citations += self._citations(Piece(p, p.lines, "", p.lines[0]))
        text = "\n".join(
            f"{label}: " + ("; " if label in listing else " ").join(texts) for label, texts in parts.items()
        )
        answer = ReferenceAwareAnswer(
            answer=clip(text, 4000), citations=citations[:20], answer_completeness="complete"
        )
        info = CallInfo(backend=self.name, pass_no=pass_no, details={"overview": list(parts)})
        return Generation(answer=answer, info=info)

    def resolve_reference(self, raw_text: str, origin_context: str, sections: list[dict]) -> str | None:
        """Deterministic guess: a section number written in the reference; 'the previous / next
        section' from the section that holds the reference (``contains_origin``); or the one
        section whose title holds every content word of the reference. None when unsure."""
        ids = {str(s.get("toc_id")) for s in sections}
        for num in re.findall(r"\d+(?:\.\d+)*", raw_text):
            if num in ids:
                return num
        relative = re.search(r"\b(previous|preceding|prior|foregoing|next|following)\b", raw_text, re.I)
        origin = next((i for i, s in enumerate(sections) if s.get("contains_origin")), None)
        if relative and origin is not None:
            # 'the previous section' = the section before the one the reference is written in
            step = -1 if relative.group(1).lower() in ("previous", "preceding", "prior", "foregoing") else 1
            by_id = {str(s.get("toc_id")): s for s in sections}
            ancestors, cur = set(), sections[origin]
            while cur.get("parent_id") and str(cur["parent_id"]) in by_id and len(ancestors) < 20:
                ancestors.add(str(cur["parent_id"]))
                cur = by_id[str(cur["parent_id"])]
            level = sections[origin].get("level") or 1
            k = origin + step
            # the neighbour at the same depth or above, neither a subsection nor an ancestor
            while 0 <= k < len(sections) and (
                (sections[k].get("level") or 1) > level or str(sections[k].get("toc_id")) in ancestors
            ):
                k += step
            return str(sections[k]["toc_id"]) if 0 <= k < len(sections) else None
        words = content_stems(raw_text) - {"see", "section", "chapter", "part", "describ", "above", "below"}
        if not words:
            return None  # 'as discussed above' needs context an extractive backend cannot weigh
        matches = [s for s in sections if words <= _title_stems(str(s.get("title", "")))]
        return str(matches[0]["toc_id"]) if len(matches) == 1 else None

    def describe(self) -> dict:
        return {
            "name": self.name,
            "model": None,
            "kind": "extractive (keyword-overlap line scoring, no model)",
            "version": __version__,
            "options": {"max_windows": self.max_windows, "max_lines": self.max_lines},
        }

    # -- pieces ---------------------------------------------------------------------------
    @staticmethod
    def _window_piece(passages: list[Passage], grouped: list, w: Window) -> Piece:
        rows = grouped[w.passage][w.start : w.end + 1]
        seed = grouped[w.passage][w.seed]
        lines = [r.ln for r in rows]
        info = {
            "page": lines[0].page,
            "lines": [lines[0].line, lines[-1].line],
            "seed_line": seed.ln.line,
            "score": w.score,
            "hits": sorted(w.hits),
            "retrieved_via": passages[w.passage].retrieved_via,
        }
        if w.held:
            info["held"] = True
        return Piece(passages[w.passage], lines, join_lines(ln.text for ln in lines), seed.ln, info)

    def _pulled_pieces(
        self, passages: list[Passage], grouped: list, pi: int, terms: list | None = None
    ) -> list[Piece]:
        """A pulled-in passage always contributes: its table row(s), its best windows, or its
        opening lines (the start of a referenced section is what the pointer meant). A long
        target is read with the words of the sentence that pointed at it as well as the
        question's (``read_as_pointed``)."""
        p = passages[pi]
        if not p.lines:
            return []
        if is_table_passage(p):
            view = view_table(p)
            if view is not None and view.row_lines:
                lines = ([view.header_line] if view.header_line and view.aligned else []) + view.row_lines
                hits = sorted(set().union(*(r.hits for r in grouped[pi] if r.ln in lines)))
                info = {"page": lines[0].page, "lines": [lines[0].line, lines[-1].line], "table": True,
                        "aligned": view.aligned, "hits": hits or ["(pulled in)"], "retrieved_via": p.retrieved_via}  # fmt: skip
                return [Piece(p, lines, view.text, view.row_lines[0], info)]
        # short targets (definitions, a paragraph) are used whole, and so is a table up to
        # TABLE_WHOLE lines that no row selector narrows: "as shown in Table 1" means the table
        if len(p.lines) <= self.ref_whole or (is_table_passage(p) and len(p.lines) <= TABLE_WHOLE):
            rows = grouped[pi]
            seed = max(rows, key=lambda r: r.context).pos
            ws = [Window(pi, 0, len(rows) - 1, seed, 0.0, set().union(*(r.hits for r in rows)))]
        else:
            grouped = read_as_pointed(passages, grouped, pi, terms)
            ws = pick_windows(
                grouped,
                [pi],
                max_windows=self.ref_windows,
                max_lines=self.ref_lines,
                min_ratio=0.3,
                finish=0,
                read_rows=False,
            )  # a pulled quote is cut by characters (compose's clip): finishing its sentence buys nothing
        if not ws:
            n = min(len(p.lines), 6)
            ws = [Window(pi, 0, n - 1, 0, 0.0, set())]
        out = []
        for w in ws:
            pc = self._window_piece(passages, grouped, w)
            pc.info["hits"] = pc.info["hits"] or ["(pulled in)"]
            out.append(pc)
        return out

    def _list_windows(self, grouped: list, primary: list[int]) -> list[Window]:
        """A list's evidence is spread over passages (one per member, listed object or page):
        each passage that matches gives its best window (a share of a list-sized line budget),
        so a weaker member is not dropped for a stronger one."""
        share = max(self.max_lines // 2, LIST_LINES // len(primary))
        out: list[Window] = []
        for pi in primary:
            rows = grouped[pi]
            hits = set().union(*(r.hits for r in rows)) if rows else set()
            if rows and hits and len(rows) <= share:  # a caption, a member's opening: whole
                seed = max(rows, key=lambda r: r.context).pos
                out.append(Window(pi, 0, len(rows) - 1, seed, rows[seed].context, hits))
                continue
            # a member's lead-in ("Some items to include in the review are:") is read on through
            # its list, as the one-passage path does for a list question
            for w in pick_windows(grouped, [pi], max_windows=1, max_lines=share, read_lists=True):
                if rows[0].ln.role in HEADING_ROLES and w.end < share:  # keep the member's heading
                    w = Window(pi, 0, w.end, w.seed, w.score, w.hits | rows[0].hits)
                out.append(w)
        return out

    @staticmethod
    def _neighbours(passages: list[Passage], pieces: list[Piece], pass_no: int, k: int) -> list[EvidenceLine]:
        """Lines within ``k`` of a used primary window (pulled-in windows are read as used only,
        so a pass-2 answer does not chase pointers that merely sit next to the pulled rows)."""
        out: list[EvidenceLine] = []
        for pc in pieces:
            if pc.passage.retrieved_via in PULLED and pass_no >= 2:
                continue
            keys = {(ln.page, ln.line) for ln in pc.lines}
            for ln in pc.passage.lines:
                if (ln.page, ln.line) in keys:
                    continue
                if any(ln.page == p and abs(ln.line - q) <= k for p, q in keys):
                    out.append(ln)
        return out

    # -- typed fields ---------------------------------------------------------------------
    @staticmethod
    def _pending(
        question: ParsedQuestion,
        passages: list[Passage],
        used: list[EvidenceLine],
        near: list[EvidenceLine],
        around: list[EvidenceLine] = (),
    ) -> list[PendingReference]:
        wants_sources = asks_for_sources(question.text)
        used_keys = {(ln.page, ln.line) for ln in used}
        refs = refdetect.detect_references(_dedupe(used + near))
        seen_lines = {(ln.page, ln.line) for ln in used + near}
        extra = [ln for ln in around if (ln.page, ln.line) not in seen_lines]
        refs += [r for r in refdetect.detect_references(_dedupe(extra)) if r.ref_type in AROUND_TYPES]
        if wants_sources:  # "(Hendrycks and Gimpel, 2016)": its entry in the reference list
            refs += refdetect.detect_author_year(_dedupe(used + near))
        refs.sort(key=lambda r: ((r.page, r.line) not in used_keys, r.page, r.line))
        out: list[PendingReference] = []
        seen: set[tuple[str, str, str]] = set()
        by_key = {(ln.page, ln.line): ln for ln in [*used, *near, *around]}
        for r in refs:
            if cites_a_stated_value(r, by_key.get((r.page, r.line))):
                continue
            if r.external:
                if not (wants_sources and r.raw_text.startswith("[")):
                    continue
                # A bracketed id ('[SP 800-90]') has an entry in the document's reference list.
                r = refdetect.DetectedRef(r.raw_text, "bib", r.target, r.page, r.line)
            elif r.ref_type == "bib" and not wants_sources:
                continue
            key = (r.ref_type, normalize(r.target), normalize(r.sub_selector))
            if key in seen or refdetect.target_in_evidence(r, passages):
                continue
            seen.add(key)
            out.append(PendingReference(raw_text=r.raw_text[:200], ref_type=r.ref_type,  # type: ignore[arg-type]
                                        origin_page=r.page, origin_line=r.line))  # fmt: skip
        return out[:10]

    @staticmethod
    def _externals(lines: list[EvidenceLine]) -> list[ExternalReference]:
        out: dict[str, ExternalReference] = {}
        for r in refdetect.detect_references(_dedupe(lines)):
            if r.external and normalize(r.target) not in out:
                out[normalize(r.target)] = ExternalReference(
                    name=r.target[:200], origin_page=r.page, origin_line=r.line, context=r.context[:400]
                )
        return list(out.values())[:10]

    @staticmethod
    def _citations(pc: Piece) -> list[Citation]:
        """One citation per contiguous run of the piece's lines (a table header and the row it
        labels are two runs, so a highlight never spans the rows in between), quoting the seed
        line when it is in the run, else the run's first line, verbatim."""
        p = pc.passage
        runs: list[list] = []
        for ln in sorted(pc.lines, key=lambda x: (x.page, x.line)):
            if runs and runs[-1][-1].page == ln.page and ln.line <= runs[-1][-1].line + 1:
                runs[-1].append(ln)
            else:
                runs.append([ln])
        out = []
        for run in runs:
            q = pc.quote_line if pc.quote_line in run else run[0]
            out.append(
                Citation(
                    doc_id=p.doc_id,
                    page=run[0].page,
                    line_start=min(ln.line for ln in run),
                    line_end=max(ln.line for ln in run),
                    quote=q.text.strip()[:600],
                    retrieved_via=p.retrieved_via,
                    referenced_from=p.referenced_from,
                    reference_text=p.reference_text,
                )  # fmt: skip
            )
        return out

    @staticmethod
    def _not_found(question: ParsedQuestion, terms: list) -> ReferenceAwareAnswer:
        topic = [t for t in terms if t.kind != "answer_type"]  # "answer type: duration" is internal
        wanted = ", ".join(t.key for t in topic[:6]) or question.text
        return ReferenceAwareAnswer(
            answer=f"The evidence provided does not answer the question: no retrieved line matches {clip(wanted, 300)}.",
            answer_completeness="not_found",
        )


#: Citations an answer holds (``ReferenceAwareAnswer.citations``).
MAX_CITATIONS = 20


def _fair_citations(per_piece: list[list[Citation]], limit: int) -> list[Citation]:
    """At most ``limit`` citations, in piece order, taken round-robin: every piece's first run
    before any piece's second, so a table cited run by run does not crowd out the targets after
    it (each target then keeps a cited line, and its completeness check sees it)."""
    picked: set[tuple[int, int]] = set()
    depth = 0
    while len(picked) < limit and any(depth < len(cs) for cs in per_piece):
        for i, cs in enumerate(per_piece):
            if depth < len(cs) and len(picked) < limit:
                picked.add((i, depth))
        depth += 1
    return [c for i, cs in enumerate(per_piece) for j, c in enumerate(cs) if (i, j) in picked]


def _dedupe(lines: list[EvidenceLine]) -> list[EvidenceLine]:
    return list({(ln.page, ln.line): ln for ln in lines}.values())
