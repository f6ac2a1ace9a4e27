"""The document's own short name in a question: a name, not a topic, for page ranking.

"Why is sublicensing not needed under the GPL?" asked of the GPL, "If my ODbL licence ends ..."
asked of the ODbL: the acronym names the document, and the document prints its own short name
most on its first pages (a preamble, "The Open Database License (ODbL) is ..."), so the term
draws the ranking to page 1 and away from the provision asked about. An acronym of the question
(two or more capitals: "GPL", "ODbL", "CDDL") that the document's own title holds as a word
("Open Database License (ODbL)") or as the initials of its words ("GNU General Public License")
is left out of the ranking terms, when at least :data:`MIN_LEFT` other terms remain and the
name is printed mostly on the front pages (a name printed all through the document, a paper's
model "BERT", is its topic as well and stays a term).
"""

from __future__ import annotations

import re

from docintel.retrieval.bm25 import page_index
from docintel.retrieval.owntitles import own_titles
from docintel.schema.document import DocTables
from docintel.schema.evidence import ParsedQuestion
from docintel.text import terms

#: An acronym as written in a question: 3 to 6 letters, two or more capitals ("GPL", "ODbL"), alone
#: or a part of a hyphenated short name ("CERN-OHL-S": CERN, OHL).
_ACRONYM = re.compile(r"(?<![\w])(?=(?:[a-z]*[A-Z]){2})([A-Z][A-Za-z]{2,5})(?![\w])")
#: A run of two or more capitalised words in a question ("the Artistic License", "NASA Open Source
#: Agreement", "Constitution for the Debian Project"; "Under the Artistic License" is two runs):
#: a name, the document's own when its title's name holds every word of it.
_NAME_RUN = re.compile(
    r"(?<![\w-])[A-Z][\w'\u2019-]*(?:[\s\u00a0]+(?:(?:of|and|for)(?:[\s\u00a0]+the)?|[A-Z][\w'\u2019-]*))*[\s\u00a0]+[A-Z][\w'\u2019-]*"
)
#: Words a title's initials skip ("Common Development and Distribution License": CDDL).
_SKIP = {"and", "of", "the", "for", "on", "in", "to", "a", "an", "&"}
#: A publication number as written in a question: a series in capitals and its number ("SP 800-60",
#: "FIPS 199", "RFC 6749", "NISTIR 7298"): the document's own when it is the first number its first
#: page prints (:func:`_cover_number`).
#: A year is no publication number ("ILSVRC 2015" on a paper's first page is the contest it won).
_PUB_ID = re.compile(r"(?<![\w-])[A-Z]{2,6}[\s\u00a0]?(?P<num>[0-9]{2,5}(?:-[0-9]{1,4}[A-Za-z]?)?)(?![\w-])")
_YEAR = re.compile(r"(?:19|20)[0-9]{2}")
#: Ranking terms that must remain besides the name for it to be left out.
MIN_LEFT = 2


#: Where a title's name ends and its edition begins: a version word, a number, a comma or colon.
_EDITION = re.compile(r"[,:;(\u2013\u2014]|\b(?:version|release|edition|revision|draft|v)\b|[0-9]")


def _initials(title: str) -> set[str]:
    """The initials of the title's name (before its edition) as a whole, and without its first
    word's ("GNU General Public License Version 3": "ggpl", "gpl"); none for a letter-spaced title ("i n f o r m a t i o n")."""
    core = _EDITION.split(title, maxsplit=1)[0]  # "gnu general public license version 3, 29 june"
    words = [w for w in re.findall(r"[^\W\d_]+", core) if w not in _SKIP]
    if len(words) < 2 or 2 * sum(len(w) == 1 for w in words) >= len(words):
        return set()
    whole = "".join(w[0] for w in words)
    return {whole, whole[1:]}


def _letter_spaced(title: str) -> bool:
    words = re.findall(r"[^\W\d_]+", title)
    return 2 * sum(len(w) == 1 for w in words) >= max(len(words), 1)


def _as_word(low: str, title: str) -> bool:
    """The acronym (casefolded) is a word of the title ("open database license (odbl)")."""
    if low in _SKIP or _letter_spaced(title):
        return False  # letter-spaced cover lines spell words, not names
    return bool(re.search(rf"(?<!\w){re.escape(low)}(?!\w)", title))


def own_name_terms(question: ParsedQuestion, tables: DocTables) -> set[str]:
    """The stemmed terms of the question's acronyms that are the document's own short name, of a
    run of capitalised words that is its title's name ("the Artistic License", "NASA Open Source
    Agreement") and of a version number its title holds ("CC BY 4.0" asked of "... Attribution
    4.0 International"), each kept only when printed mostly on the front pages."""
    text = question.text or ""
    found = {m.group(1) for m in _ACRONYM.finditer(text)}
    runs = [m.group(0) for m in _NAME_RUN.finditer(text)]
    numbers = [n for n in question.numbers if "." in n or not n.isdigit()]
    pubs = list(_PUB_ID.finditer(text))
    if not (found or runs or numbers or pubs):
        return set()
    titles = own_titles(tables)
    out: set[str] = set()
    for acr in found:
        low = acr.casefold()
        # the initials whole, never a part of them (any short acronym spells a part of some
        # title's initials); an acronym printed nowhere is no front-loaded term (_front_loaded)
        if any(_as_word(low, t) or low in _initials(t) for t in titles):
            out.update(t for t in terms(acr) if _front_loaded(tables, t))
    for run in runs:
        words = [w.casefold() for w in re.findall(r"[^\W\d_]+", run) if w.casefold() not in _SKIP]
        if len(words) >= 2 and any(all(_as_word(w, _name_of(t)) for w in words) for t in titles):
            out.update(t for t in terms(run) if _front_loaded(tables, t))
    if (
        pubs
    ):  # "SP 800-60" asked of SP 800-60: its number first on the cover, a name wherever else it is printed
        own = _cover_number(tables)
        out.update(t for m in pubs if m.group("num") == own for t in terms(m.group(0)))
    for num in numbers:  # a dotted version ("4.0", "1.3c"), never a bare count ("30 days")
        if any(re.search(rf"(?<![\w.]){re.escape(num.casefold())}(?![\w.])", t) for t in titles):
            out.update(t for t in terms(num) if _front_loaded(tables, t))
    return out


#: A number on a cover that may be a publication's: three to five digits and a part ("800-60",
#: "6749", "199"); a shorter one is a day, a volume or a DOI prefix ("29 June", "10.6028").
_COVER_NUM = re.compile(r"(?<![\w.-])[0-9]{3,5}(?:-[0-9]{1,4}[A-Za-z]?)?(?![\w-])")


def _cover_number(tables: DocTables) -> str | None:
    """The first publication-like number the document's first page prints, every line read (a
    cover's number may be set as furniture), years skipped: the document's own ("NIST Special
    Publication 800-60", "Request for Comments: 6749"). A number printed after it is another
    publication's, cited ("Obsoletes: 5849 ... the OAuth 1.0 protocol described in RFC 5849", an
    SP's "ISO/IEC/IEEE 15288" on its cover), a topic of the question, never its name."""
    ldf = tables.line_df
    if ldf.empty:
        return None
    cover = ldf[ldf["page"] == ldf["page"].min()].sort_values("line", kind="stable")
    for text in cover["text"].astype(str):
        for m in _COVER_NUM.finditer(text):
            if not _YEAR.fullmatch(m.group(0)):
                return m.group(0)
    return None


def _name_of(title: str) -> str:
    """The title's name, before its edition ("the artistic license 2.0": "the artistic license")."""
    return _EDITION.split(title, maxsplit=1)[0]


#: Pages at the front of the document where a name used as a name is printed most.
FRONT_PAGES = 2


def _front_loaded(tables: DocTables, term: str) -> bool:
    """At least half of the term's occurrences are on the first :data:`FRONT_PAGES` pages (a
    licence's preamble, a contract's title page): the name draws the ranking to the front. A
    name printed all through the document ("BERT" in the BERT paper) is its topic too, and stays."""
    index = page_index(tables)
    tf = index.tf(term)
    total = sum(tf.values())
    front = sum(tf.get(p, 0) for p in index.pages[:FRONT_PAGES])
    return total > 0 and 2 * front >= total


def without_own_name(query: list[str], question: ParsedQuestion, tables: DocTables) -> list[str]:
    """``query`` less the document's own short name (:func:`own_name_terms`), when enough remains."""
    own = own_name_terms(question, tables)
    if not own:
        return query
    left = [t for t in query if t not in own]
    return left if len(left) >= MIN_LEFT else query


def without_own_bigrams(
    pairs: set[tuple[str, str]], query: list[str], question: ParsedQuestion, tables: DocTables
) -> set[tuple[str, str]]:
    """Phrase bigrams less those made of the document's own name alone ("cern ohl", "open
    sourc"), when its terms were left out of ``query`` (:func:`without_own_name`)."""
    own = own_name_terms(question, tables) - set(query)
    return {b for b in pairs if not (b[0] in own and b[1] in own)} if own else pairs


def without_own_name_words(question: ParsedQuestion, tables: DocTables) -> ParsedQuestion:
    """``question`` less the keywords that are the document's own short name (for the window of
    a chosen page: "(CDDL) Version 1.0" under the title is no answer), when enough remain."""
    own = own_name_terms(question, tables)
    if not own:
        return question
    left = [k for k in question.keywords if not set(terms(k)) <= own]
    return question.model_copy(update={"keywords": left}) if len(left) >= MIN_LEFT else question
