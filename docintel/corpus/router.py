"""The router: read a question, propose a path (search, list, follow, agent), validate in code.

Deterministic rules by default; an LLM router (any callable returning the same fields) when one
is configured. Whatever proposes, :func:`validate_route` decides: a list proposal needs a record
type that exists, filters only on that type's fields, and anything unclear falls back to search,
where every question went before. The agent path needs a tool-capable model; without one an
agent proposal becomes follow, and the proposal says why.

Rules (general, none is written for a particular question):
- list: a list word ("list every/all", "how many", "enumerate", "count", "which/what <plural>")
  plus a record type whose noun (and context, if the type declares one) the question names.
  "Which <singular> ..." has one answer and stays on search.
- follow: a relation between documents or identifiers ("cite", "refer to", "map to", "derived
  from", "depend on", "tied to", "apply to", "which documents use", "covered elsewhere").
  A question naming two record types at different places ("which controls and which
  subcategories cover ...") asks how two sets map onto each other: follow, not one list.
- agent: an explicit chain: a later clause consumes an earlier clause's result ("that control",
  "of them", "the one that", "it references") after a relation, or three or more questions; or
  stated facts then a question that applies named guidance to them ("A system was categorized
  moderate. Following FIPS 200, which ..."): look the procedure up, then apply it.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from docintel.corpus.records import RECORD_TYPES, RecordType

Path = Literal["search", "list", "follow", "agent"]


class RouteProposal(BaseModel):
    """Which path answers the question, and for a list, which records."""

    path: Path = Field(
        description="search: best passages; list: every matching record; follow: one hop "
        "through identifiers; agent: bounded multi-hop tool loop"
    )
    record_type: str | None = Field(None, description="list path: the record type to enumerate")
    filters: dict[str, str] = Field(
        default_factory=dict,
        description="list path: field -> value every listed record must match (case-insensitive)",
    )
    reason: str = Field("", description="why this path, in a few words (shown in the trace)")


@runtime_checkable
class LLMRouter(Protocol):
    """A model-backed router: question (+ known record types) -> proposal fields (a dict)."""

    def __call__(self, question: str, record_types: Mapping[str, str]) -> Mapping[str, Any]: ...


_LIST_WORDS = re.compile(
    r"^\s*(?:list|enumerate|name|count)\b|\b(?:list|enumerate|name) (?:every|all|each|the)\b|"
    r"\bhow many\b|\b(?:every|all) (?:the )?\w+s\b",
    re.IGNORECASE,
)
#: "which/what" + a plural noun phrase (up to three words, optionally hyphenated) = a set.
_WHICH_PLURAL = re.compile(r"\b(?:which|what)\s+((?:[\w-]+\s+){0,3}?[\w-]+s)\b", re.IGNORECASE)
#: Words ending in "s" that are not plural nouns ("what is", "which does").
_NOT_PLURAL = {"is", "was", "does", "has", "its", "this", "thus", "us", "as", "always", "across", "process"}
_RELATION = re.compile(
    r"\bcit(?:e|es|ed|ing)\b|\brefer(?:s|red)? to\b|\breferenc(?:es|ed|ing)\b|\bmapp?(?:ed|s)? to\b|"
    r"\bderived from\b|\bdepends? on\b|\btied to\b|\bwhat (?:does|do)\b.{1,60}\bapply to\b|\bcovered elsewhere\b|"
    r"\bwhich (?:other )?(?:documents|guidance|publications)\b|\bother (?:documents|guidance)\b|"
    r"\bwhat do (?:the )?[\w\s,-]+ say about\b|"
    # issue 14 (follow): ids of one system that cover another's, things that use / are affected
    # by a piece of evidence, what must be in place before something
    r"\bwhich\b[\w\s,-]{0,80}\b(?:cover|covers|implement|implements)\b[\w\s-]{0,60}"
    r"\b(?:requirement|outcome|control|subcategory)\b|"
    r"\bwhich (?:[\w-]+ ){0,3}(?:use|uses|are affected by)\b|"
    r"\b(?:need|must) to have (?:been )?(?:completed|done|put in place)\b",
    re.IGNORECASE,
)
_ANAPHOR = re.compile(
    r"\b(?:that|those|these) (?:control|requirement|outcome|task|publication|document|report|section|"
    r"step|revision|one)s?\b|\bof them\b|\bthe one (?:that|which)\b|\bit references\b|\bthere\b",
    re.IGNORECASE,
)
#: An asked sentence that opens by applying guidance to what was stated before it.
_APPLY = re.compile(r"^(?:using|following|applying|per|under|based on)\b[^,?]{3,80},", re.IGNORECASE)
_SAY_ABOUT = re.compile(r"\bsay about\b", re.IGNORECASE)
_CLAUSE_SPLIT = re.compile(
    r"\?\s*|;\s*|,\s+(?:and\s+)?(?=(?:what|which|how|is|are|does|do)\b)|\s+and\s+(?=(?:what|which|how|is|are)\b)",
    re.IGNORECASE,
)


def _questions(question: str) -> list[str]:
    """The interrogative / imperative sentences: statements set context, they don't route."""
    sents = [s.strip() for s in re.split(r"(?<=[.?!])\s+", question.strip()) if s.strip()]
    asked = [s for s in sents if s.endswith("?") or re.match(r"(?i)(list|enumerate|name|count)\b", s)]
    return asked or sents


def _applies_guidance(question: str) -> bool:
    """Stated facts, then an asked sentence opening with "Using/Following <guidance>, ..."."""
    sents = [s.strip() for s in re.split(r"(?<=[.?!])\s+", question.strip()) if s.strip()]
    stated = [s for s in sents if not s.endswith("?")]
    asked = [s for s in sents if s.endswith("?")]
    return bool(stated and asked and sents[0] in stated and any(_APPLY.match(s) for s in asked))


def _clauses(text: str) -> list[str]:
    return [c for c in _CLAUSE_SPLIT.split(text) if c and c.strip()]


def _singular(nouns: str) -> str:
    """``"phases|controls"`` -> ``"phase|control"`` (a plain trailing s dropped per alternative)."""
    return "|".join(re.sub(r"s$", "", alt) for alt in nouns.split("|"))


def _noun(rt: RecordType, question: str, plural_only: bool) -> re.Match[str] | None:
    """The first place the question names ``rt``'s noun (only a plural one with ``plural_only``:
    a noun alternative may also spell the singular, as "subcategor(y|ies)" does)."""
    nouns = rt.nouns if plural_only else f"{rt.nouns}|{_singular(rt.nouns)}"
    for m in re.finditer(rf"\b(?:{nouns})\b", question, re.IGNORECASE):
        if not plural_only or m.group(0).lower().endswith("s"):
            return m
    return None


def match_record_type(
    question: str, types: Mapping[str, RecordType] = RECORD_TYPES, *, plural_only: bool = False
) -> RecordType | None:
    """The record type the question names: its noun (and context), the earliest noun winning.

    After a list word the noun may be singular ("list every phase"); with only "which"/"what" as
    the list signal (``plural_only``) it must be plural: "which level requires ..." has one answer.
    """
    best: tuple[int, int, int, RecordType] | None = None
    for rt in types.values():
        if not rt.nouns:
            continue
        m = _noun(rt, question, plural_only)
        if not m or (rt.context and not re.search(rt.context, question, re.IGNORECASE)):
            continue
        # Ties (two types share a noun): the type whose filter words the question uses is meant.
        hits = sum(
            bool(re.search(p, question, re.IGNORECASE)) for w in rt.filter_words.values() for p in w.values()
        )
        rank = (m.start(), -len(m.group(0)), -hits, rt)
        if best is None or rank[:3] < best[:3]:
            best = rank
    return best[3] if best else None


def _names_two_types(question: str, types: Mapping[str, RecordType], *, plural_only: bool) -> bool:
    """Two record types whose nouns (and contexts) the question names at different places."""
    spans = set()
    for rt in types.values():
        if not rt.nouns or (rt.context and not re.search(rt.context, question, re.IGNORECASE)):
            continue
        if m := _noun(rt, question, plural_only):
            spans.add(m.span())
    return len({start for start, _ in spans}) >= 2


def _filters(
    rt: RecordType, question: str, vocabulary: Mapping[str, Mapping[str, set[str]]]
) -> dict[str, str]:
    """Field filters read from the question: declared filter words, then known field values."""
    out: dict[str, str] = {}
    for field, words in rt.filter_words.items():
        for value, pat in words.items():
            if re.search(pat, question, re.IGNORECASE):
                out[field] = value
                break
    q = question.lower()
    for field, values in vocabulary.get(rt.name, {}).items():
        if field in out:
            continue
        hits = [v for v in values if v and len(v) > 3 and re.search(rf"\b{re.escape(v.lower())}\b", q)]
        if hits:
            out[field] = max(hits, key=len)
    return out


def rule_route(
    question: str,
    *,
    types: Mapping[str, RecordType] = RECORD_TYPES,
    vocabulary: Mapping[str, Mapping[str, set[str]]] | None = None,
) -> RouteProposal:
    """The deterministic router (see the module docstring for the rules)."""
    asked = " ".join(_questions(question))
    clauses = _clauses(asked)
    relation = [bool(_RELATION.search(c)) for c in clauses]
    chained = [bool(_ANAPHOR.search(c)) and not _SAY_ABOUT.search(c) for c in clauses]
    after_relation = any(chained[i] and any(relation[:i]) for i in range(1, len(clauses)))
    if (
        after_relation
        or (len(clauses) >= 3 and any(relation))
        or re.search(r"\bthe one (?:that|which)\b", asked, re.I)
        or _applies_guidance(question)
    ):
        return RouteProposal(path="agent", reason="a later clause uses an earlier clause's result")
    if any(relation):
        return RouteProposal(path="follow", reason="asks how documents or identifiers relate")
    listy = bool(_LIST_WORDS.search(asked))
    plural = any(
        m.group(1).split()[-1].lower() not in _NOT_PLURAL
        and not any(w.lower() in _NOT_PLURAL for w in m.group(1).split())
        for m in _WHICH_PLURAL.finditer(asked)
    )
    if listy or plural:
        rt = match_record_type(asked, types, plural_only=not listy)
        if rt is not None and _names_two_types(asked, types, plural_only=not listy):
            return RouteProposal(path="follow", reason="names two record types: how one maps to the other")
        if rt is not None:
            return RouteProposal(
                path="list",
                record_type=rt.name,
                filters=_filters(rt, asked, vocabulary or {}),
                reason=f"list word and record type {rt.name}",
            )
        return RouteProposal(path="search", reason="list word but no known record type")
    return RouteProposal(path="search", reason="one best passage")


def validate_route(
    proposal: Mapping[str, Any] | RouteProposal,
    *,
    types: Mapping[str, RecordType] = RECORD_TYPES,
    agent_available: bool = False,
) -> RouteProposal:
    """Check a proposal in code; anything invalid or unclear becomes search (or agent -> follow)."""
    try:
        p = proposal if isinstance(proposal, RouteProposal) else RouteProposal.model_validate(dict(proposal))
    except Exception as exc:  # a model's malformed output must never pick a path
        return RouteProposal(path="search", reason=f"invalid proposal ({type(exc).__name__}); search")
    if p.path == "agent" and not agent_available:
        return RouteProposal(
            path="follow", reason="agent proposed but no tool-capable model is configured; follow"
        )
    if p.path != "list":
        return RouteProposal(path=p.path, reason=p.reason)
    rt = types.get(p.record_type or "")
    if rt is None:
        return RouteProposal(path="search", reason=f"unknown record type {p.record_type!r}; search")
    allowed = set(rt.fields) | set(rt.filter_words) | {"doc_id"}
    filters = {k: str(v) for k, v in p.filters.items() if k in allowed and str(v).strip()}
    return RouteProposal(path="list", record_type=rt.name, filters=filters, reason=p.reason)


def route(
    question: str,
    *,
    llm: LLMRouter | None = None,
    agent_available: bool = False,
    types: Mapping[str, RecordType] = RECORD_TYPES,
    vocabulary: Mapping[str, Mapping[str, set[str]]] | None = None,
) -> tuple[RouteProposal, dict[str, Any]]:
    """Route ``question``; return the validated proposal and its trace span."""
    t0 = time.perf_counter()
    if llm is not None:
        try:
            proposed: Mapping[str, Any] | RouteProposal = llm(
                question, {n: t.label for n, t in types.items()}
            )
            by = "llm"
        except Exception as exc:  # noqa: BLE001 - a failing model falls back to the rules, said in the span
            proposed, by = (
                rule_route(question, types=types, vocabulary=vocabulary),
                f"rules (llm failed: {exc})",
            )
    else:
        proposed, by = rule_route(question, types=types, vocabulary=vocabulary), "rules"
    final = validate_route(proposed, types=types, agent_available=agent_available)
    raw = proposed.model_dump() if isinstance(proposed, RouteProposal) else dict(proposed)
    span = {
        "stage": "route",
        "by": by,
        "proposed": raw,
        "path": final.path,
        "record_type": final.record_type,
        "filters": final.filters,
        "reason": final.reason,
        "ms": round((time.perf_counter() - t0) * 1000, 3),
    }
    return final, span
