"""Question -> ParsedQuestion: keywords, phrases, numbers, scope and expected answer shape.

Rule-based on purpose (no NLP model): the output is a retrieval brief, and every
rule here is cheap, deterministic and explainable in the trace.
"""

from __future__ import annotations

import re

from docintel.errors import UsageError
from docintel.questions.function_words import foreign_function_words
from docintel.schema.evidence import AnswerShape, AnswerType, ParsedQuestion, Scope, ScopeKind
from docintel.text import QUESTION_WORDS, STOP_WORDS, is_content, is_number, normalize, words

MAX_QUESTION_CHARS = 2000

# --- scope: "in Table 2", "Section 3.1", "on page 8", "Appendix A", "paragraph (q)(1)" ----------
_ID = r"[A-Z]?\d+(?:\.\d+)*[a-z]?\b|[A-Z](?:\.\d+)*\b"  # 3, 3.1.2, 4a, A, A.1 (case-sensitive letters)
_PAREN_ID = r"(?:\([A-Za-z0-9]{1,4}\))+"  # (q), (q)(1), (h)(2)
_SCOPE_PATTERNS: list[tuple[ScopeKind, re.Pattern[str]]] = [
    # Keywords are case-insensitive, ids are not: "Appendix A" is a scope, "appendix a ..." is not.
    ("table", re.compile(rf"\b(?i:table\s+|tab\.\s*)({_ID})")),
    ("figure", re.compile(rf"\b(?i:figure\s+|fig\.\s*)({_ID})")),
    ("equation", re.compile(rf"\b(?i:equation\s+|eqn?\.\s*)\(?({_ID})\)?")),
    ("appendix", re.compile(rf"\b(?i:appendix\s+)({_ID})")),
    ("annex", re.compile(rf"\b(?i:annex\s+)({_ID})")),
    ("section", re.compile(rf"(?:\b(?i:section\s+|sec\.\s*)|§\s*)({_ID})")),
    ("clause", re.compile(rf"\b(?i:paragraph|clause|subparagraph|item)\s*({_PAREN_ID}|\d+(?:\.\d+)*\b)")),
    ("page", re.compile(r"\b(?i:page\s+|p\.\s*)(\d+\b|[ivxlc]+\b)")),
]

# --- answer shape cues; the first rule that fires wins, in this order ---------------------------
_YES_NO_START = re.compile(
    r"^(?:does|do|did|is|are|was|were|can|could|should|must|will|would|has|have|had|may|might|shall)\b",
    re.I,
)
_COMPARISON = re.compile(
    r"\b(?:compare[ds]?|comparison|comparing|versus|vs\.?|similar(?:ly)?|differ(?:s|ence|ences)?|different from"
    r"|better|worse|outperform\w*|relative to|as opposed to|same as|contrast)\b",
    re.I,
)
_LIST = re.compile(
    r"\b(?:list|enumerate|name all|which (?:\w+ ){0,4}all|what are all|all (?:the )?\w+ (?:that|which|of)"
    r"|each (?:one|of)|how many\b.*\b(?:each|list)\b"
    # a count named with the ask ("what are the four tiers"), kinds of a thing, or a count and
    # its members ("how many categories ... and what are their identifiers")
    r"|(?:what|which) (?:are|were) the (?:\d+|two|three|four|five|six|seven|eight|nine|ten|twelve)\b"
    r"|(?:what|which) (?:kinds?|types?|sorts?|categories) of"
    r"|how many\b.*\band (?:what|which) (?:are|were|is)\b)",
    re.I,
)
_NUMBER = re.compile(
    r"\b(?:how (?:many|much|long|large|big|often|far|old)|what (?:percentage|percent|fraction|number"
    r"|value|length|size|amount|cost|price|rate)|how many)\b",
    re.I,
)
_DEFINITION = re.compile(
    r"\b(?:define[ds]?|definition|meaning of|what does [\w\- ]{1,40} (?:mean|stand for)|what is meant by"
    r"|stands? for|what (?:counts|qualifies) as"
    # "what does the word 'sentence' refer to?": the question asks what a word names
    r"|what (?:does|do) (?:the )?(?:word|term|phrase|expression|abbreviation|acronym)s? .{1,60}? refer to)\b",
    re.I,
)
_WHAT_IS = re.compile(
    r"^(?:what|who)\s+(?:is|are)\s+(?:an?\s+|the\s+)?(?P<term>[^?,;]+?)(?:\?|$| and )", re.I
)
_PROCEDURE = re.compile(
    r"\b(?:how (?:do|does|did|should|can|to|is|are|was|were) (?:[\w\-/'.]+ ){0,12}?"
    r"(?:computed|calculated|generated|performed|done|made|obtained|derived|applied|implemented|"
    r"constructed|created|built|installed|configured|work|works|produce|produced)|(?:what|which|the) steps|"
    r"steps (?:to|for|required)|procedure|"
    r"process for|how to)\b",
    re.I,
)

_IMPERATIVES = frozenset(
    {"list", "name", "enumerate", "summarize", "summarise", "show", "identify", "outline"}
)
_QUOTED = re.compile(r'"([^"]{2,120})"|\'([^\']{2,120})\'')
_HYPHENATED = re.compile(r"\b[^\W_]+(?:[-/][^\W_]+)+\b")
_NUMBER_IN_TEXT = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*(?:%|[kKmM]\b)?")


def parse_question(text: str) -> ParsedQuestion:
    """Parse a user's question into keywords, phrases, numbers, scope and answer shape.

    Raises UsageError when the question is empty, longer than 2000 characters, or
    has no content word at all (nothing to retrieve on).
    """
    if text is None or not text.strip():
        raise UsageError("the question is empty: ask something about the document")
    if len(text) > MAX_QUESTION_CHARS:
        raise UsageError(
            f"the question is {len(text)} characters long; keep it under {MAX_QUESTION_CHARS} "
            "(ask one question at a time)"
        )
    clean = " ".join(normalize(text).split())
    scope = find_scope(clean)
    keywords = _keywords(clean)
    # The number in "Table 2" / "page 8" names the region, it is not a search term.
    numbers = _numbers(clean.replace(scope.text, " ") if scope else clean)
    if not keywords and not numbers and scope is None and not is_overview(clean, scope):
        raise UsageError(f"the question {text.strip()!r} has no content words to search for; rephrase it")
    shape = "overview" if is_overview(clean, scope) else answer_shape(clean)
    return ParsedQuestion(
        text=clean,
        keywords=keywords,
        phrases=_phrases(clean),
        numbers=numbers,
        scope=scope,
        shape=shape,
        defined_term=defined_term(clean) if shape == "definition" else None,
        answer_type=answer_type(clean),
    )


#: "within what time", "how much time", "what deadline": the noun names the answer type (a
#: duration), not a topic; the provision states "72 hours", not "time".
_ANSWER_TYPE_NOUN = re.compile(
    r"\b(?:what|which|how much)\s+((?:amount\s+of\s+|length\s+of\s+)?(?:time(?:\s+(?:limit|frame|period)s?)?"
    r"|period(?:\s+of\s+time)?|deadlines?|time-?frames?))\b",
    re.I,
)


#: A leading prepositional or adverbial clause closed by a comma ("Under HIPAA, how long ...",
#: "After a breach is discovered, how many days ...") comes before the asking words; the clause
#: must open with such a word, so "What should be considered, when deciding how long ..." is no
#: opening and stays not a duration question.
_LEAD = (
    r"(?:(?:under|for|within|after|before|in|at|on|during|once|when|whenever|if|upon|following|"
    r"according to|pursuant to|per|as|by|from|where|with|without|unless|until|regarding)\b"
    r"[^,?;]{1,100},\s*){0,2}"
)

#: A question asking for a time span: "How long / how soon ...", "how many days", "what deadline",
#: opening the question ("For how long ...", "Within how many days ..."). "By when" asks for a
#: date or an event; "what should be considered when deciding how long to keep it" asks for the
#: considerations, not a span; "what time does it open" asks for a clock time, "what days" for
#: days of the week; "how long-term ..." is an adjective.
_OPENS = r"^" + _LEAD + r"(?:(?:for|within|in|and|so|then)\s+)?"
_ASKS_DURATION = re.compile(
    _OPENS + r"(?:how (?:long|soon)\b(?!-)|how (?:many|much)\s+(?:time|days)\b"
    r"|within what (?:time|period|time ?frame|time period|period of time)\b"
    r"|how many (?:seconds|minutes|hours|(?:calendar |business )?days|weeks|months|years)\b"
    r"|what (?:time limit|deadline|time ?frame|time period|period of time)\b)",
    re.I,
)
#: "How long must the random value be?" asks for a length, not a time; "How long must records be
#: kept?" (a passive participle after "be") and "How long after ... must it be sent?" still ask for a time.
_ASKS_LENGTH = re.compile(
    r"\bhow long\b(?!\s+after\b)[^?]*?\bbe\b(?!\s+(?:\w{2,}ed|kept|held|left|set|given|taken|shown|done)\b)",
    re.I,
)
#: "How long is the cable / key / list?" asks for a length too: "how long is/are <noun>" is a time
#: only with a verb of time ("How long is the data kept?") or a noun that names a span ("How long
#: is the notice period?"); "For / within how long is ..." always asks for one.
_HOW_LONG_IS = re.compile(r"^" + _LEAD + r"(?:(?:and|so|then)\s+)?how long (?:is|are|was|were)\b", re.I)
_TIME_WORDS = re.compile(
    r"\b(?:take|takes|taken|keep|keeps|kept|retain|retains|retained|last|lasts|remain|remains|stay|stays|"
    r"period|periods|term|terms|duration|time|delay|wait|waiting|interval|notice|deadline|lifetime|tenure|"
    r"retention|validity)\b",
    re.I,
)
#: A question asking for a recurrence, opening it: "How often ...", "how frequently", "at what
#: interval". Not "what frequency": "What frequency band does the radio use?" asks for a band.
_ASKS_FREQUENCY = re.compile(
    _OPENS + r"(?:how (?:often|frequently)\b|(?:at )?what intervals?\b|how many times (?:a|an|per|each)\b)",
    re.I,
)


def answer_type(text: str) -> AnswerType | None:
    """The kind of value the question asks for, when its wording says so: "duration" ("How soon
    must ...", "within what time"), "frequency" ("How often ..."), else None. Read from the
    question proper (its last sentence); carried to the answer, which then prefers the line
    that states such a value."""
    sentences = [s for s in re.split(r"(?<=[.?!])\s+", text.strip()) if s]
    last = next((s for s in reversed(sentences) if s.endswith("?")), sentences[-1] if sentences else text)
    if _ASKS_FREQUENCY.search(last):
        return "frequency"
    if _ASKS_DURATION.search(last) and not _ASKS_LENGTH.search(last):
        copula = _HOW_LONG_IS.search(last)
        if copula and not _TIME_WORDS.search(last, copula.end()):
            return None  # a length: "How long is the cable?"
        return "duration"
    return None


#: "How long / soon / often ...": the adverb asks for a span or a recurrence (the answer type), it
#: names no topic; the provision says "60 calendar days", not "soon" ("as soon as" is elsewhere).
#: "how long-term leases are reported" is an adjective: "long" stays a topic word.
_HOW_ADVERB = re.compile(r"\bhow\s+(long|soon|often|frequently)\b(?!-)", re.I)


#: "get" as the asking verb ("can I get it refunded", "how do I get an extension") names no topic;
#: also capitalised at a sentence's start ("Get ..."); written in capitals ("a GET request") it is
#: a name and stays.
_LIGHT_VERB = re.compile(r"\b(?:get|gets|got|getting)\b", re.I)


def _light_verbs(text: str) -> set[str]:
    return {w.lower() for w in _LIGHT_VERB.findall(text) if not w.isupper()}


def _keywords(text: str) -> list[str]:
    """Content words in order of first appearance, without numbers or question filler."""
    seen: dict[str, None] = {}
    typed = {w for m in _ANSWER_TYPE_NOUN.finditer(text) for w in words(m.group(1))}
    typed |= {m.group(1).lower() for m in _HOW_ADVERB.finditer(text)}
    typed |= _light_verbs(text)
    ws = words(text)
    if ws and ws[0] in _IMPERATIVES:  # "List all the checklists": "list" is the ask, not the topic
        ws = ws[1:]
    foreign = foreign_function_words(ws)
    for w in ws:
        if is_content(w) and not is_number(w) and w not in QUESTION_WORDS and w not in typed | foreign:
            seen.setdefault(w, None)
    return list(seen)


def _numbers(text: str) -> list[str]:
    seen: dict[str, None] = {}
    for m in _NUMBER_IN_TEXT.finditer(text):
        seen.setdefault(m.group(0), None)
    return list(seen)


def _phrases(text: str) -> list[str]:
    """Quoted terms, hyphenated terms, then noun-ish runs of 2-4 content words.

    A run is a maximal sequence of content words not broken by a stop word or by
    punctuation ("learned positional embeddings", "flight control computer
    software"): a cheap stand-in for noun-phrase chunking that needs no tagger.
    """
    out: dict[str, None] = {}
    for m in _QUOTED.finditer(text):
        out.setdefault((m.group(1) or m.group(2)).strip().lower(), None)
    for m in _HYPHENATED.finditer(text):
        out.setdefault(m.group(0).lower(), None)
    foreign = foreign_function_words(words(text)) | _light_verbs(text)
    for chunk in re.split(r"[,;:?!()\[\]\"]|\.(?:\s|$)", text):
        # "the Framework's access control category": the owner is no part of the thing's name
        # the text prints ("Access Control Category"), so the run after a possessive is a phrase too
        for part in [chunk, *_POSSESSIVE.split(chunk)[1:]]:
            for run in _runs(part, foreign):
                out.setdefault(run, None)
    return list(out)


#: A possessive ending a word: "Framework's", "Framework’s", "licensors'" (before a space).
_POSSESSIVE = re.compile(r"(?<=[^\W\d_])(?:['’]s|s['’])(?=\s)")


def _runs(text: str, foreign: set[str]) -> list[str]:
    """Runs of 2+ content words not broken by a stop word, a question word or a number."""
    out: list[str] = []
    run: list[str] = []
    for w in [*words(text), ""]:
        if (
            w
            and w not in STOP_WORDS
            and w not in QUESTION_WORDS | foreign
            and not is_number(w)
            and len(w) > 1
        ):
            run.append(w)
            continue
        if len(run) >= 2:
            # Long runs are usually two phrases glued together; keep the last 4 (the head).
            out.append(" ".join(run[-4:]))
        run = []
    return out


def find_scope(text: str) -> Scope | None:
    """The first region the question names ('in Table 2', 'on page 8', 'paragraph (q)(1)')."""
    best: tuple[int, Scope] | None = None
    for kind, pattern in _SCOPE_PATTERNS:
        m = pattern.search(text)
        if m and (best is None or m.start() < best[0]):
            target = m.group(1).strip()
            if kind in ("appendix", "annex", "section") and len(target) == 1 and target.isalpha():
                target = target.upper()
            best = (m.start(), Scope(kind=kind, target=target, text=m.group(0).strip()))
    return best[1] if best else None


#: "the term 'Recipient'", "the word sentence": the noun that names the asked word a word, after
#: "the", is not part of the term ("the term of the licence" is no such noun).
_NAMING = r"(?:(?<=the\s)(?:word|term|phrase|expression|abbreviation|acronym)s?\s+(?!of\b))?"

#: (pattern, shaped): a ``shaped`` pattern's term must look like a term (:func:`_term_shaped`):
#: "how are X defined" spans a clause when "defined" belongs to a later one ("How are disputes
#: resolved when a term is not defined?", "How is the fee calculated when the Product is defined?").
_DEFINED = [
    (
        re.compile(
            rf"\b(?:define|definition of|meaning of|what is meant by)\s+(?:an?\s+|the\s+)?{_NAMING}(?P<term>[^?,;.]+)",
            re.I,
        ),
        False,
    ),
    (
        re.compile(
            rf"\bwhat (?:does|do) (?:an?\s+|the\s+)?{_NAMING}(?P<term>[^?,;]+?) (?:mean|stand for)\b", re.I
        ),
        False,
    ),
    (re.compile(r"\bwhat (?:counts|qualifies) as (?:an?\s+|the\s+)?(?P<term>[^?,;.]+)", re.I), False),
    # "what does the term 'X' refer to": the named word, without the noun that names it a word
    (
        re.compile(
            r"\bwhat (?:does|do) (?:the\s+)?(?:word|term|phrase|expression|abbreviation|acronym)s?\s+"
            r"(?P<term>[^?,;]+?) refer to\b",
            re.I,
        ),
        True,
    ),
    # "How is a Framework Profile defined?", "How is the term 'Recipient' defined?"
    (re.compile(rf"\bhow (?:is|are) (?:an?\s+|the\s+)?{_NAMING}(?P<term>[^?,;.]+?) defined\b", re.I), True),
]


def defined_term(text: str) -> str | None:
    """The term a definition question asks about ("What is MCAS ...?" -> "MCAS"), else None.
    Quotes around it are the user's, not the term's ("What does 'covered entity' mean?")."""
    term = _defined_term(" ".join(normalize(text).split()))
    return term.strip(_TERM_QUOTES) or None if term else None


#: Words a "What is X?" term may have.
MAX_TERM_WORDS = 6
_TERM_QUOTES = " '\"\u2018\u2019\u201c\u201d`"


#: "how is that sensitivity defined": the term was named earlier in the question, in words this
#: phrase does not repeat; searching for the bare noun would find any sentence about it.
_POINTS_BACK = re.compile(r"\s*(?:that|this|these|those|its|their|such)\s", re.I)


def _defined_term(text: str) -> str | None:
    sentences = [s for s in re.split(r"(?<=[.?!])\s+", text) if s]
    for sentence in reversed(sentences):
        m = _WHAT_IS.match(sentence)
        if m:
            term = m.group("term").strip().strip(_TERM_QUOTES)
            if _term_shaped(term):
                return term
        for pattern, shaped in _DEFINED:
            m = pattern.search(sentence)
            if not m or _POINTS_BACK.match(m.group("term")):
                continue
            if shaped and not _term_shaped(m.group("term").strip().strip(_TERM_QUOTES)):
                continue
            return m.group("term").strip()
    return None


def _term_shaped(term: str) -> bool:
    """A short noun phrase ("MCAS", "the exclusive-or operation", "at-risk community"), not a
    clause such as "reported in Table 2" or "disputes resolved when a term is not": a participle,
    or any function word standing alone, means it is not a term (a hyphenated word is one word).
    A law's defined terms run longer ("authorized hazardous fuel reduction project"): up to
    MAX_TERM_WORDS words, a participle allowed before a noun, not alone or last ("What is
    required?", "What is the total encrypted?")."""
    ws = words(term)
    tokens = [words(t) for t in term.split()]
    return bool(
        ws
        and len(tokens) <= MAX_TERM_WORDS
        and all(any(is_content(w) for w in t) for t in tokens if t)
        and not ws[-1].endswith("ed")
    )


# --- overview: "what is this document about", "summarize section 3" ------------------------------
_OVERVIEW_CUE = re.compile(
    r"\b(?:summari[sz]e|summary|summarization|overview|gist|tl;?dr|about|cover(?:s|ed)?|main (?:points?|topics?|ideas?)"
    r"|key (?:points?|topics?|ideas?)|purpose|outline)\b",
    re.I,
)
#: Words an overview question may hold besides its cue: the document's own name, the asking verbs.
#: Any other content word is a topic ("summarize the hashing rules"), and the question is not one.
_OVERVIEW_WORDS = frozenset(
    """
    about summarize summarise summary summarization overview gist tl tldr dr cover covers covered main
    key point points topic topics idea ideas purpose outline brief briefly short quick give me tell
    document documents paper report pdf file publication article text standard guideline guidelines
    guide specification notice rule rules whole entire content contents chapter section appendix annex
    describe describes discuss discusses discussed deal deals us provide
    """.split()  # noqa: SIM905 (a word block reads better than a long list literal)
)
_OVERVIEW_SCOPES = frozenset({"section", "appendix", "annex"})


def is_overview(text: str, scope: Scope | None = None) -> bool:
    """An overview question: an overview cue ("about", "summarize", "overview", "cover") and no
    topic word besides the document's name, optionally scoped to a section or appendix
    ("What does Appendix B cover?"). "Summarize the hashing rules" names a topic: not one."""
    if scope is not None and scope.kind not in _OVERVIEW_SCOPES:
        return False
    rest = text.replace(scope.text, " ") if scope else text
    if not _OVERVIEW_CUE.search(rest):
        return False
    topic = [
        w
        for w in words(rest)
        if is_content(w) and w not in QUESTION_WORDS and w not in _OVERVIEW_WORDS and not is_number(w)
    ]
    return not topic


def answer_shape(text: str) -> AnswerShape:
    """Expected answer shape from cue words (see the module constants for the rules)."""
    # The question proper is usually the last sentence ("The paper says X. Does it ...?").
    sentences = [s for s in re.split(r"(?<=[.?!])\s+", text.strip()) if s]
    last = next((s for s in reversed(sentences) if s.endswith("?")), sentences[-1] if sentences else text)
    if _LIST.search(text):
        return "list"
    if _DEFINITION.search(text):
        return "definition"
    # "What is X?" with a short X asks for a definition; "What is in Table 2?" does not.
    if defined_term(last):
        return "definition"
    if _YES_NO_START.match(last):
        return "yes_no"
    if _COMPARISON.search(text):
        return "comparison"
    if _NUMBER.search(last):
        return "number"
    if _PROCEDURE.search(last):
        return "procedure"
    return "fact"
