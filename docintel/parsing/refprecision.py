"""Precision rules of the reference grammar: shapes that look like a reference but are not one,
judged by the text around them (a citation locator, an editorial bracket, an acronym gloss, an
index inside a URL or an XPath, a page footer)."""

from __future__ import annotations

import re

from docintel.parsing.refkinds import STATEMENT_KINDS
from docintel.parsing.refrules import BODY_ACRONYM, RefPattern

_PAGE_OF = re.compile(r"^[\s\u00a0]*(?i:of|de|von|sur|di)[\s\u00a0]+[0-9]{1,4}\b")
#: Bracketed words that are editorial marks of legal and standards texts, not citation keys.
_EDITORIAL = {
    "optional", "required", "reserved", "amended", "removed", "redesignated", "deleted", "added",
    "revised", "sic", "emphasis", "omitted", "crossref", "pubmed", "google", "scholar", "note",
}  # fmt: skip
#: Words that may stand before a numbered rule ("see Rule 5", "under Rule 12(b)", "Rules 4 to 7 apply"):
#: any other word makes "Rule" part of a name ("the HIPAA Security Rule", "binding corporate rules",
#: "Local Rule 7.1"), and the number after it a heading's or another code's.
_LEAD_WORDS = {
    "see", "under", "in", "per", "pursuant", "of", "and", "or", "nor", "the", "this", "these", "those", "by",
    "with", "to", "as", "from", "cf", "also", "following", "each", "any", "every", "that", "such", "where",
    "if", "when", "at", "on", "for", "is", "are", "was", "were", "be", "not", "than", "its", "their", "our",
    "into", "within", "via", "except", "notwithstanding", "apply", "applies", "applying", "violate", "violates",
    "satisfy", "satisfies", "invoke", "invokes", "cite", "cites", "cited", "comply", "complies", "governs",
    "contrary", "and/or", "both", "either", "all", "only", "new", "current", "existing", "proposed", "amended",
}  # fmt: skip
#: A court's or a rule book's own rules, named by the set they belong to: "Local Rule 7.1", "Civil
#: Rule 16.1(b)", "Bankruptcy Rule 7001" are rules of the book ("the HIPAA Security Rule 5" is not).
_COURT_RULES = {
    "local", "civil", "criminal", "bankruptcy", "appellate", "admiralty", "evidence", "supplemental",
    "family", "juvenile", "probate", "uniform",
}  # fmt: skip
_ACRONYM = re.compile(BODY_ACRONYM)
_OWN_LABEL = {"item", "line", "box", "worksheet", "step", "recital"}
_NOTE_ITSELF = re.compile(r"[\s\u00a0]*(?:[:.\u2013\u2014]|to[\s\u00a0])")
AUTHOR_YEAR = re.compile(r"[A-Z][a-z]+(?:\s+(?:et\s+al\.?|[A-Z][a-z]+))?\s*(?:19|20)[0-9]{2}[a-z]?")


def _acronym_gloss(text: str, start: int, key: str) -> bool:
    """'mandatory access control [MAC]': the bracket spells the words before it."""
    if not re.fullmatch(r"[A-Z]{2,6}", key):
        return False
    words = re.findall(r"[A-Za-z][A-Za-z0-9]*", text[max(0, start - 80) : start])[-len(key) :]
    return len(words) == len(key) and "".join(w[0] for w in words).upper() == key


_TAG = re.compile(r"</?[A-Za-z][\w:\-]*(?:\s[^<>]*)?/?>")


def _in_url(text: str, start: int, end: int) -> bool:
    """Inside a URL, a path or an XPath ("SP800-55-rev1.pdf", "task[1]/timing")."""
    left = re.search(r"\S*$", text[max(0, start - 80) : start]).group(0)
    right = re.match(r"\S*", text[end : end + 80]).group(0)
    # markup around prose ("described in Appendix B.</p>") is not a path
    around = _TAG.sub(" ", left + " " + right)
    return bool(re.search(r"://|www\.|/", around))


#: Where a control id is said to be one: the word around it or its catalogue (a bracket counts
#: only when the id is inside it, "[AC-2]", "[Ref. SA-11]": "PM-10 [3]" is a measure with a citation).
_CONTROL_CONTEXT = re.compile(r"(?i:\bcontrols?\b|\benhancements?\b|800-53)")
_BRACKET_OPEN = re.compile(r"\[[^\[\]\n]{0,12}$")
_BRACKET_CLOSE = re.compile(r"[^\[\]\n]{0,40}\]")


def _not_a_control(m: re.Match, text: str) -> bool:
    """ "PM-10" of an air-quality report, "SC-28 Seal kit" of a parts list, "CA-1 Federal
    Employee's Notice" of a form catalogue: a lone id is a control only where the text says so
    (the word control or enhancement, SP 800-53, within 80 characters, or a bracket around the id),
    where it is one of a list or carries an enhancement ("AC-2(3)"). A control's own heading
    ("AC-3 ACCESS ENFORCEMENT") is no reference: the labelled index reads it
    (``refrules.control_heading``)."""
    raw = m.group("targets")
    if "(" in raw or len(re.findall(r"[A-Z]{2}-", raw)) > 1:
        return False
    if _BRACKET_OPEN.search(text[max(0, m.start() - 14) : m.start()]) and _BRACKET_CLOSE.match(
        text[m.end() : m.end() + 40]
    ):
        return False  # "[AC-2]", "[Ref. SA-11]", "[SCRM AC-11]": the id inside a bracket of its own
    return not _CONTROL_CONTEXT.search(text[max(0, m.start() - 80) : m.end() + 80])


def drop(rule: RefPattern, m: re.Match, text: str) -> bool:
    """Shapes that look like a reference but are not one (by the text around them)."""
    before = text[m.start() - 1] if m.start() else " "
    if _in_url(text, m.start(), m.end()):
        return True
    if rule.name == "control":
        return _not_a_control(m, text)
    if (
        rule.family == "absolute"
        and before == "-"
        and "label" in m.groupdict()
        and m.group("label")[:1].isalpha()
    ):
        return True  # "multi-task 93.0", "two-step 3": a compound word, not a label
    if (
        rule.name == "task"
        and m.group("label").lower().endswith("s")
        and not re.search(r"[,\-\u2013]|\s(?:and|or|to|through)\s", m.group("targets"))
    ):
        return True  # "Tasks" / "1. The supervisory ...": a heading, then a paragraph's number
    if rule.name == "bib_numeric":
        ids = re.findall(r"[0-9]+", m.group("targets"))
        ends = re.fullmatch(r"\s*([0-9]+)\s*[\u2013\-]\s*([0-9]+)\s*", m.group("targets"))
        if ends and int(ends.group(2)) <= int(ends.group(1)):
            return True  # "[800-82]": a report number, not a run of citations
        entry_label = before == "\n" or m.start() == 0 and re.match(r"[\s\u00a0]+[A-Z]\.?\s", text[m.end() :])
        return bool(
            before.isalnum() or before in ")]" or "0" in ids or any(i.startswith("0") for i in ids)
        ) or bool(entry_label and re.match(r"[\s\u00a0]+[A-Z]", text[m.end() :]))
    if rule.name == "bib_key":
        key = m.group("targets")
        return (
            key.lower() in _EDITORIAL
            or before.isalnum()
            or before in ")]"
            or _acronym_gloss(text, m.start(), key)
            or bool(re.match(r"(?i:page|section|table|figure|chapter|appendix|part)\b", key))
        )
    if rule.name == "note" and (m.start() == 0 or text[: m.start()].endswith("\n")):
        # "Note 1 to paragraph (g): ..." / "Note 2: ..." opening a line is the note itself;
        # "Notes 12 and 13, respectively." opening a line is a pointer
        return bool(_NOTE_ITSELF.match(text[m.end() : m.end() + 20]))
    if rule.name in ("rule", "regulation"):
        word = re.search(r"\b([A-Za-z/]+)[\s\u00a0]+$", text[max(0, m.start() - 30) : m.start()])
        # "FINRA Rule 2010" (a body's rule), "Rule 2111. Suitability" (a rule book's heading)
        body = word is not None and _ACRONYM.fullmatch(word.group(1)) and not m.group("label").isupper()
        heading = not text[: m.start()].strip() and re.match(
            r"[.:][ \t\u00a0]+[A-Z]", text[m.end() : m.end() + 3]
        )
        number = re.fullmatch(r"(?:1[89]|20)[0-9]{2}|[0-9]{4,}", m.group("targets"))
        # "the Civil Procedure Rules 1998", "the CPR Rules 1998": a title's year; "Rules\n2224": a line number
        if number and (not (body or heading) or m.group("label").endswith("s")):
            return True
        if (
            word
            and len(m.group("label")) > 2
            and word.group(1).lower() not in _LEAD_WORDS
            and word.group(1).lower() not in _COURT_RULES
            and not body  # "FINRA Rule 2111": the body's rule (kept)
        ):
            return True  # "the HIPAA Security Rule" + a heading's number: a named rule set, not rule 4
        if len(m.group("label")) == 2 and re.search(
            r"\b[A-Z]\.[\s\u00a0]*$", text[max(0, m.start() - 4) : m.start()]
        ):
            return True  # "H. R. 1904": a bill's initials, not rule 1904
    if rule.name == "appendix_unnumbered" and re.match(
        r"[\s\u00a0]+(?:to|of)[\s\u00a0]+(?:the[\s\u00a0]+)?[A-Z]", text[m.end() : m.end() + 16]
    ):
        return True  # "the Annex to Commission Recommendation 2003/361/EC": another act's annex
    if rule.name == "box" and re.search(
        r"(?i:\bP\.?\s?O\.?|\bpost\s+office)[\s\u00a0]*$", text[max(0, m.start() - 14) : m.start()]
    ):
        return True  # "P.O. Box 992": an address
    if rule.name in STATEMENT_KINDS and "\n\n" in text[m.start("label") : m.start("targets")]:
        return True  # "Examples" / (blank) / "1.9 ...": a heading list, the next block's number
    if rule.name in STATEMENT_KINDS and re.match(r"[0-9]{3,}(?![.0-9])", m.group("targets")):
        return True  # "461 Example" / "462 ...": a line-numbered standard's margin number, no statement
    if rule.name in _OWN_LABEL and re.match(r"[\s\u00a0]*:", text[m.end() : m.end() + 3]):
        return True  # "Step 7: Implement Action Plan", "4.3 Step 3: Activate": the step naming itself
    if rule.name == "page":
        label = m.group("label")
        return (
            label.isupper()
            and len(label) > 2
            or before == "["  # "[Page 19]": a page footer
            or bool(_PAGE_OF.match(text[m.end() : m.end() + 12]))
        )
    return False
