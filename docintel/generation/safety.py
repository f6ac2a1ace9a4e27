"""Guards between a model's structured output and the loop: a schema that grammar-based servers
can compile, and the deterministic reference detector as a safety net for references the model
did not flag.

- ``grammar_safe_model``: llama.cpp turns a forced tool's JSON schema into a GBNF grammar and
  gives up on a string bounded above ~1000 characters (the repetition expands past its limit);
  the grammar is then dropped and llama-cpp-python crashes. The schema *sent* caps
  ``maxLength``; pydantic still validates with the real bounds.
- ``merge_detected_references``: a small model often leaves ``pending_references`` empty even
  when the lines it cites say 'see Table 3 row (E)'. The detector's references in the cited
  lines (and their neighbours) whose target is not in the evidence are added, so pass 2 runs;
  each addition is reported so the trace says which references came from the detector.
"""

from __future__ import annotations

import functools
import json
import logging
import re
from typing import Any

from pydantic import BaseModel, ValidationError

from docintel.generation import refdetect
from docintel.generation.text import normalize
from docintel.schema.answer import ExternalReference, PendingReference, ReferenceAwareAnswer
from docintel.schema.evidence import EvidenceLine, ParsedQuestion, Passage
from docintel.schema.kinds import PULLED_VIA

log = logging.getLogger(__name__)

GRAMMAR_MAX_STRING = 1000  # llama.cpp rejects the repetition of a 1200-character string


def _cap_lengths(node: Any, limit: int) -> Any:
    if isinstance(node, dict):
        if isinstance(node.get("maxLength"), int) and node["maxLength"] > limit:
            node["maxLength"] = limit
        for value in node.values():
            _cap_lengths(value, limit)
    elif isinstance(node, list):
        for value in node:
            _cap_lengths(value, limit)
    return node


@functools.lru_cache(maxsize=32)
def grammar_safe_model(model: type[BaseModel], max_string: int = GRAMMAR_MAX_STRING) -> type[BaseModel]:
    """A subclass of ``model`` (same name, same validation) whose JSON schema caps every
    string's ``maxLength`` at ``max_string`` (0: no cap) and whose JSON parsing tolerates raw
    control characters inside strings."""
    if max_string <= 0:
        max_string = 10**9

    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict:
        return _cap_lengths(model.model_json_schema.__func__(cls, *args, **kwargs), max_string)

    def model_validate_json(cls, json_data: Any, **kwargs: Any) -> Any:
        try:
            return model.model_validate_json.__func__(cls, json_data, **kwargs)
        except ValidationError as first:
            # Grammar-sampled JSON may hold raw newlines inside strings (llama.cpp's grammar
            # allows them, strict JSON does not): re-encode once, else keep the first error.
            try:
                clean = json.dumps(json.loads(json_data, strict=False))
            except (TypeError, ValueError):
                raise first from None
            return model.model_validate_json.__func__(cls, clean, **kwargs)

    return type(
        model.__name__,
        (model,),
        {
            "__doc__": model.__doc__,
            "__module__": model.__module__,
            "model_json_schema": classmethod(model_json_schema),
            "model_validate_json": classmethod(model_validate_json),
        },
    )


def as_base(value: BaseModel, model: type[BaseModel]) -> BaseModel:
    """``value`` as an instance of ``model`` exactly (undoes ``grammar_safe_model``)."""
    return value if type(value) is model else model.model_validate(value.model_dump())


# -- references the model missed ----------------------------------------------------------------
_NEAR = 1  # neighbour lines scanned around each citation (a reference may sit on the next line)
_TAG = re.compile(r"\[p(\d+) l(\d+)\]")


def _question_lines(passages: list[Passage], question: ParsedQuestion) -> set[tuple[int, int]]:
    """The lines the offline scorer would answer from (its best windows in primary passages)."""
    from docintel.generation.offline.scoring import pick_windows, question_terms, score_lines

    try:
        grouped, _ = score_lines(passages, question_terms(question))
    except Exception as exc:  # the scorer's bug must not lose the model's answer; say so in the log
        log.warning("line scoring failed (%s); detector scans cited lines only", exc)
        return set()
    primary = [i for i, p in enumerate(passages) if p.retrieved_via not in PULLED_VIA]
    out: set[tuple[int, int]] = set()
    for w in pick_windows(grouped, primary, max_windows=3, max_lines=14):
        for row in grouped[w.passage][w.start : w.end + 1]:
            out.add((row.ln.page, row.ln.line))
    return out


def _scan_lines(
    answer: ReferenceAwareAnswer, passages: list[Passage], question: ParsedQuestion | None
) -> list[EvidenceLine]:
    """Evidence lines the answer rests on: its citations' lines, line tags written in its text
    ('[p6 l27]'), and their neighbours; without citations, also the lines that best match the
    question."""
    lines = [ln for p in passages for ln in p.lines]
    spans = [(c.page, c.line_start, c.line_end) for c in answer.citations]
    spans += [(int(p), int(n), int(n)) for p, n in _TAG.findall(answer.answer)]
    wanted: set[tuple[int, int]] = set()
    for page, start, end in spans:
        for n in range(start - _NEAR, end + _NEAR + 1):
            wanted.add((page, n))
    if not answer.citations and question is not None:
        wanted |= _question_lines(passages, question)  # a tag in prose is weak evidence of use
    seen: set[tuple[int, int]] = set()
    out = []
    for ln in lines:
        key = (ln.page, ln.line)
        if key in wanted and key not in seen:
            seen.add(key)
            out.append(ln)
    return out


def find_missed_references(
    answer: ReferenceAwareAnswer, passages: list[Passage], question: ParsedQuestion | None = None
) -> tuple[list[PendingReference], list[ExternalReference]]:
    """References the detector finds in the lines the answer rests on that the answer does not
    list: internal ones whose target is not in the evidence (pending), and named external
    documents. A 'not_found' answer is checked too: the evidence may point to where the answer is."""
    listed = {normalize(r.raw_text) for r in answer.pending_references}
    listed_keys = {refdetect.ref_key(r.raw_text) for r in answer.pending_references} - {None}
    named = {normalize(e.name) for e in answer.external_references}
    pending: list[PendingReference] = []
    externals: list[ExternalReference] = []
    for r in refdetect.detect_references(_scan_lines(answer, passages, question)):
        if r.external:
            if normalize(r.target) not in named and normalize(r.raw_text) not in named:
                named.add(normalize(r.target))
                externals.append(ExternalReference(name=r.target[:200], origin_page=r.page,
                                                   origin_line=r.line, context=r.context[:400]))  # fmt: skip
            continue
        if r.ref_type == "bib":
            continue  # bracketed citations are sources, followed only when the question asks for them
        key = (r.ref_type, normalize(r.target))
        if normalize(r.raw_text) in listed or key in listed_keys or refdetect.target_in_evidence(r, passages):
            continue
        listed.add(normalize(r.raw_text))
        listed_keys.add(key)
        pending.append(PendingReference(raw_text=r.raw_text[:200], ref_type=r.ref_type,  # type: ignore[arg-type]
                                        origin_page=r.page, origin_line=r.line))  # fmt: skip
    return pending, externals


def merge_detected_references(
    answer: ReferenceAwareAnswer, passages: list[Passage], question: ParsedQuestion | None = None
) -> tuple[ReferenceAwareAnswer, dict]:
    """``answer`` with the detector's missed references added (pending ones set the answer to
    'references_unresolved'), and a report ``{"pending": [...], "external": [...]}`` of what was
    added, for the trace."""
    pending, externals = find_missed_references(answer, passages, question)
    report = {"pending": [p.raw_text for p in pending], "external": [e.name for e in externals]}
    if not pending and not externals:
        return answer, report
    room = max(0, 10 - len(answer.pending_references))
    update: dict[str, Any] = {
        "pending_references": list(answer.pending_references) + pending[:room],
        "external_references": (list(answer.external_references) + externals)[:10],
    }
    if pending[:room] and answer.answer_completeness != "references_unresolved":
        update["answer_completeness"] = "references_unresolved"
    return answer.model_copy(update=update), report
