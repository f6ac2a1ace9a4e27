"""Tokenisation shared by question parsing, retrieval and generation, so every side matches.

One pipeline for questions and page text: Unicode NFKC (ligatures such as
"fi" become two letters), lower case, words split on anything that is not a
letter, digit, underscore, or an inner '.'/''' (so "28.4", "rv_length_indicator"
and "sp800" survive, while "sine/cosine" and "english-to-german" split; runs of scripts
written without spaces, such as Chinese or Thai, become character bigrams), English
stop words dropped, then the Porter stem. Retrieval imports these functions
from here: tokenising the two sides differently is the classic silent
retrieval bug.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import snowballstemmer

_PORTER = snowballstemmer.stemmer("porter")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Porter stem (snowballstemmer's implementation of the 1980 algorithm).

    Identifiers and numbers ("rv_length_indicator", "28.4", "sp800") are index
    keys as written: only plain alphabetic words are stemmed.
    """
    if not word.isalpha() or _NO_SPACE_RUN.search(word):
        return word
    return _PORTER.stemWord(word) or word  # Porter strips a lone 's' to ''


#: Scripts written without spaces between words: Han, Hiragana, Katakana, Hangul, Thai, Lao,
#: Myanmar, Khmer. A run of them is indexed as overlapping character bigrams ("数据安全" ->
#: 数据 据安 安全), so any string of two or more characters present in the text is found
#: without a dictionary; Thai/Lao/Myanmar/Khmer vowel signs (combining marks) stay in the run.
_NO_SPACE = (
    "\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u1100-\u11ff\u3040-\u30ff\u3130-\u318f"
    "\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
)
_NO_SPACE_RUN = re.compile(f"[{_NO_SPACE}]+")
_LETTER = rf"(?:[^\W_]|[{_NO_SPACE}])"
# Words: letters/digits (any script), inner '_', '.', ''' kept ("28.4", "don't").
_WORD = re.compile(rf"{_LETTER}+(?:[_.'’]{_LETTER}+)*|[\u2200-\u22ff\u2a00-\u2aff]")
#: Mathematical operators (⊕, ∥, ≤ ...) are one-character words: standards define them and users ask.
_MATH_SYMBOL = re.compile(r"^[\u2200-\u22ff\u2a00-\u2aff]$")
_NUMBER = re.compile(r"^\d+(?:[.,]\d+)*$")

#: Function words (a classic English list). Cue words such as "all", "not" and "between" are here
#: too: parse_question reads cues from the raw text, not from the word list.
STOP_WORDS = frozenset(
    """
    a about above after again against am an and any are aren't as at be because been before being
    below both but by can can't could couldn't did didn't do does doesn't doing don't down during
    few for from further had hadn't has hasn't have haven't having he her here hers herself him
    himself his how i if in into is isn't it it's its itself just let's me might more most must
    my myself nor of off on once or other ought our ours ourselves out over own same shall she
    should so some such than that that's the their theirs them themselves then there there's these
    they this those through to too under until up upon very was wasn't we were weren't what when
    where which while who whom whose why will with won't would wouldn't you your yours yourself
    yourselves also may via per etc i.e e.g ie eg whether s t all each every many much not no only
    between another either neither
    """.split()  # noqa: SIM905 (a word block reads better than a 200-item list literal)
)

#: Words that shape a question but rarely name its topic; dropped from keywords so they do
#: not pull retrieval towards any page that happens to use them.
QUESTION_WORDS = frozenset(
    """
    according anyway actually author authors back chapter describe described describes document
    exact exactly example examples explain find give given gives kind mention mentioned mentions particular please
    paper regarding say said says section state stated states tell text use used uses using way ways
    """.split()  # noqa: SIM905 (a word block reads better than a 200-item list literal)
)


def normalize(text: str) -> str:
    """NFKC + unify quotes/dashes, so PDF ligatures and typographic marks match plain text."""
    text = unicodedata.normalize("NFKC", text)
    return text.translate(str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "–": "-", "—": "-"}))


def nfkc(text: str) -> str:
    """Unicode NFKC (splits ligatures like 'ﬁ'), soft hyphens removed."""
    return unicodedata.normalize("NFKC", text or "").replace("\u00ad", "")


_WS = re.compile(r"\s+")
# A hyphen at a line break between two letters, the next one lower-case: "extrapo-\nlate".
# Upper-case or digit continuations ("SP 800-\n90", "Self-\nAttention") keep their hyphen.
_BREAK_HYPHEN = re.compile(r"([^\W\d_])[-\u00ad\u2010]\s+([a-z])")


def comparison_form(text: str) -> str:
    """The form two texts are compared in (a quote against the cited lines): NFKC, line-break
    hyphens joined, whitespace collapsed, casefolded. :func:`normalize` is the lighter form
    tokenising uses (characters unified, case and spacing kept)."""
    t = nfkc(text)
    t = _BREAK_HYPHEN.sub(r"\1\2", t)
    return _WS.sub(" ", t).strip().casefold()


def words(text: str) -> list[str]:
    """Lower-cased word tokens in order (stop words kept); possessive 's dropped."""
    out: list[str] = []
    for w in _WORD.findall(normalize(text).lower()):
        w = w.strip("._'")
        if w.endswith("'s"):
            w = w[:-2]
        if w and _NO_SPACE_RUN.search(w):
            out.extend(_split_no_space(w))
        elif w:
            out.append(w)
    return out


def _split_no_space(word: str) -> list[str]:
    """A token holding a no-space script: its other parts as words, each run as bigrams
    (a one-character run as itself)."""
    out: list[str] = []
    pos = 0
    for m in _NO_SPACE_RUN.finditer(word):
        out += [w for w in re.split(r"[_.']+", word[pos : m.start()]) if w]
        run = m.group(0)
        out += [run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)]
        pos = m.end()
    out += [w for w in re.split(r"[_.']+", word[pos:]) if w]
    return out


def is_number(word: str) -> bool:
    return bool(_NUMBER.match(word))


def is_content(word: str) -> bool:
    """A word worth indexing: not a stop word, and a number or at least two characters."""
    return word not in STOP_WORDS and (
        len(word) > 1 or word.isdigit() or bool(_MATH_SYMBOL.match(word)) or bool(_NO_SPACE_RUN.match(word))
    )


def terms(text: str) -> list[str]:
    """Index terms of ``text`` in order: content words, Porter-stemmed (numbers kept as written)."""
    return [stem(w) for w in words(text) if is_content(w)]


def dehyphenate(lines: list[str]) -> str:
    """Join lines into one text, undoing end-of-line hyphenation ("embed-" + "dings")."""
    out: list[str] = []
    for ln in lines:
        ln = ln.strip()
        if out and out[-1].endswith("-") and len(out[-1]) > 1 and out[-1][-2].isalpha() and ln[:1].islower():
            out[-1] = out[-1][:-1] + ln
        else:
            out.append(ln)
    return " ".join(out)


# --- roman numerals (page labels, provision numbers, reference ranges) --------------------------

_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}
_ROMAN_SYMBOLS = (
    (1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"),
    (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"),
)  # fmt: skip


def to_roman(n: int, upper: bool = False) -> str:
    """4 -> 'iv' ('IV' with ``upper``)."""
    out = ""
    for v, sym in _ROMAN_SYMBOLS:
        while n >= v:
            out, n = out + sym, n - v
    return out.upper() if upper else out


def roman_value(s: str, letters: str = "ivxlcdm") -> int | None:
    """'iv' -> 4, 'XII' -> 12 (either case); None unless ``s`` is a well-formed numeral written
    with ``letters`` only (provision labels leave out d and m: "(d)" is a letter there)."""
    low = s.lower()
    if not low or any(ch not in letters or ch not in _ROMAN_VALUES for ch in low):
        return None
    total = 0
    for a, b in zip(low, low[1:] + " ", strict=False):
        v = _ROMAN_VALUES[a]
        total += -v if b in _ROMAN_VALUES and _ROMAN_VALUES[b] > v else v
    return total if total > 0 and to_roman(total) == low else None


# --- where a term is defined ---------------------------------------------------------------------

#: An opening or closing quote around a defined term; U+2015 stands for an opening quote in some
#: fonts' text layer, and US legislative style doubles them ("the term ''Federal land'' means").
_QUOTE = "[\"'\u2018\u2019\u201c\u201d\u2015]{0,2}"
_DEFINING_VERB = (
    rf"(?:is|are|can be|may be|shall be)\s+{_QUOTE}(?:an?|the|any|defined|called)\b"
    r"|means\b|refers?\s+to\b|denotes\b|stands?\s+for\b"
)


def defining_pattern(term: str, *, introduced: bool = False) -> re.Pattern[str]:
    """Where ``term`` is defined, case-insensitive, whole words, in :func:`normalize`d or
    :func:`comparison_form` text: the term (quoted or not, an abbreviation in parentheses after
    it allowed) then a defining verb ("X is a ...", "X means ..."), or the term opening a
    glossary line ("PII: ...", "12 PII - ..."). With ``introduced``, also where the term is only
    introduced: "long name (TERM)", "called TERM", "known as TERM". The one builder of the
    offline answer's defining sentence and retrieval's definition sites."""
    t = re.escape(" ".join(normalize(term).split())).replace(r"\ ", r"[\s\-]+")
    alts = [
        rf"(?<![\w-]){_QUOTE}{t}{_QUOTE}(?![\w-])\s*(?:\([^)]{{1,40}}\)\s*)?,?\s*(?:{_DEFINING_VERB})",
        rf"^\s*(?:\d+\s+)?{_QUOTE}{t}{_QUOTE}\s*(?::|-|\u2013|\u2014)(?:\s|$)",
    ]
    if introduced:
        alts += [
            rf"\(\s*{t}\s*\)",
            rf"\b(?:called|termed|known as|denoted(?: by)?|defined as)\s+(?:an?\s+|the\s+)?{_QUOTE}{t}\b",
        ]
    return re.compile("|".join(alts), re.I)


_COUNT = (
    r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty|thirty|forty|sixty|ninety"
    r"|several|few)"
)
_UNIT = r"(?:second|minute|hour|day|week|month|quarter|year)s?"
#: A stated time span: "60 calendar days", "thirty (30) days", "72 hours", "6 years", "a day"
#: (not "a second": the ordinal). What a question asking "How soon / how long ..." is answered by.
STATED_DURATION = re.compile(
    rf"\b(?:{_COUNT}(?:\s*\(\d+\))?[\s-]+(?:calendar\s+|business\s+|working\s+)?{_UNIT}"
    r"|an?\s+(?:minute|hour|day|week|month|year))\b",
    re.I,
)
#: A stated recurrence: "each 5 years thereafter", "every 3 months", "annually", "once a year",
#: "on an ongoing basis". What a question asking "How often ..." is answered by.
STATED_FREQUENCY = re.compile(
    rf"\b(?:(?:each|every|per)\s+(?:{_COUNT}\s+)?(?:calendar\s+)?{_UNIT}"
    r"|(?:bi|semi-?)?annually|quarterly|monthly|weekly|daily|hourly|yearly"
    r"|(?:once|twice|\d+\s+times)\s+(?:a|an|per|each|every)\s+\w+"
    r"|on an?\s+(?:annual|monthly|weekly|daily|quarterly|ongoing|continuous|periodic|regular|recurring)\s+basis)\b",
    re.I,
)
#: The line pattern of each answer type a question may ask for (``ParsedQuestion.answer_type``).
ANSWER_TYPE_PATTERNS: dict[str, re.Pattern[str]] = {
    "duration": STATED_DURATION,
    "frequency": STATED_FREQUENCY,
}
