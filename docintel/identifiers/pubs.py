"""Publication identifiers: NIST SP, FIPS, NISTIR and the Cybersecurity Framework by name."""

from __future__ import annotations

import re

from docintel.identifiers import kinds as _k
from docintel.identifiers.base import LIST_SEP, Ctx, Ident, make_attrs

# --- publications: SP, FIPS, NISTIR ---------------------------------------------------------
_SP_PREFIX = (
    r"(?:NIST\.SP\.|NIST\s?SPs?\s?|NIST\s+Special\s+Publications?\s+(?:\(SPs?\)\s+)?"
    r"|Special\s+Publications?\s+(?:\(SPs?\)\s+)?|SPECIAL\s+PUBLICATION\s+|(?<![A-Za-z])SPs?\s?"
    r"|(?<=/)(?:sp|NISTSP)|NIST\s+)"
)
_SP_NUM = r"(?P<series>1800|800|500)\s?-\s?(?P<num>\d{1,3})(?!\d)(?P<letter>[A-Z](?![a-z])|[a-d](?![a-z]))?"
_TAIL = (
    r"(?P<tail>(?:(?:r\d{1,2}|v\d{1,2}|pt\d|-\d{1,2})(?![\d])"
    r"|,?\s?(?i:rev(?:ision)?)\.?\s?\d{1,2}(?!\d)"
    r"|,?\s(?i:vol(?:ume)?)\.?\s?(?:\d{1,2}|IV|I{1,3})(?![A-Za-z\d])"
    r"|,?\sPart\s\d{1,2}(?!\d))*)"
)
SP_RE = re.compile(r"(?:(?P<prefix>" + _SP_PREFIX + r")|(?<![\w\-./+#$]))" + _SP_NUM + _TAIL)
SP_CONT = re.compile(LIST_SEP + r"(?P<prefix>" + _SP_PREFIX + r")?" + _SP_NUM + _TAIL)

_TAIL_TOKEN = re.compile(
    r"(?i:rev(?:ision)?)\.?\s?(?P<rev>\d{1,2})|(?i:vol(?:ume)?)\.?\s?(?P<vol>\d{1,2}|IV|I{1,3})"
    r"|Part\s(?P<part>\d{1,2})|pt(?P<gpart>\d)|(?<![A-Za-z])r(?P<grev>\d{1,2})|(?<![A-Za-z])v(?P<gvol>\d{1,2})"
    r"|-(?P<dash>\d{1,2})"
)
_ROMAN = {"I": "1", "II": "2", "III": "3", "IV": "4"}


def _tail(tail: str, dash_means: str) -> dict[str, str]:
    """Revision / volume / part out of the qualifiers after a publication number."""
    out: dict[str, str] = {}
    for t in _TAIL_TOKEN.finditer(tail or ""):
        if t.group("rev") or t.group("grev"):
            out["revision"] = str(int(t.group("rev") or t.group("grev")))
        elif t.group("vol") or t.group("gvol"):
            v = t.group("vol") or t.group("gvol")
            out["volume"] = _ROMAN.get(v, str(int(v)) if v.isdigit() else v)
        elif t.group("part") or t.group("gpart"):
            out["part"] = str(int(t.group("part") or t.group("gpart")))
        elif t.group("dash"):
            out[dash_means] = str(int(t.group("dash")))
    return out


def pub_full(canonical: str, q: dict[str, str]) -> str:
    full = canonical
    if q.get("volume"):
        full += f" Vol. {q['volume']}"
    if q.get("part"):
        full += f" Part {q['part']}"
    if q.get("revision"):
        full += f" Rev. {q['revision']}"
    return full


def _sp_one(m: re.Match, ctx: Ctx, *, in_list: bool) -> list[Ident]:
    series, num = m.group("series"), int(m.group("num"))
    letter = (m.group("letter") or "").upper()
    tail = m.group("tail") or ""
    # bare "800-53": only in a list after a prefix, with a qualifier, or where the text
    # names the series with a prefix elsewhere (a phone number "800-555" never qualifies)
    bare = not m.group("prefix") and not in_list
    bracketed = ctx.text[m.start() - 1 : m.start()] == "[" and ctx.text[m.end() : m.end() + 1] == "]"
    if bare and (series != "800" or not (tail or bracketed or ctx.series_named or ctx.permissive)):
        return []
    if bare and re.match(r"\s?-\s?\d", ctx.text[m.end() : m.end() + 3]):
        return []  # "800-555-0100": a phone number
    attrs: dict[str, str] = {}
    limit = _k.SP_MAX.get(series, 999)
    if num > limit and bare:
        return []
    if num > limit:
        # a footnote number glued to the publication number: "SP 800-398" = SP 800-39 + note 8
        if num >= 100 and num // 10 <= limit and not letter and not tail:
            attrs["footnote"] = str(num % 10)
            num //= 10
        else:
            return []
    canonical = f"SP {series}-{num}{letter}"
    dash = "volume" if canonical in _k.SP_DASH_IS_VOLUME else "revision"
    q = _tail(tail, dash)
    q.update(attrs)
    return [Ident("sp", canonical, pub_full(canonical, q), make_attrs(**q))]


def build_sp(m: re.Match, ctx: Ctx) -> list[Ident]:
    return _sp_one(m, ctx, in_list=False)


_FIPS_PREFIX = (
    r"(?:NIST\.FIPS\.|Federal\s+Information\s+Processing\s+Standards?\s+(?:\(FIPS\)\s+)?"
    r"(?:Publications?\s+|PUBS?\.?\s+)?(?:\(FIPS\)\s+)?|(?<![A-Za-z])FIPS[\s\-]?(?:PUBS?\.?\s?|Publications?\s+|Pub\.?\s?)?)"
)
_FIPS_NUM = r"(?P<num>\d{1,3})(?P<rev>\s?-\s?\d{1,2})?(?!\d)"
FIPS_RE = re.compile(r"(?P<prefix>" + _FIPS_PREFIX + r")" + _FIPS_NUM)
FIPS_CONT = re.compile(LIST_SEP + r"(?P<prefix>" + _FIPS_PREFIX + r")?" + _FIPS_NUM)


def build_fips(m: re.Match, ctx: Ctx) -> list[Ident]:
    num = int(m.group("num"))
    if not 1 <= num <= _k.FIPS_MAX:
        return []
    rev = re.sub(r"\D", "", m.group("rev") or "")
    canonical = f"FIPS {num}"
    full = f"{canonical}-{int(rev)}" if rev else canonical
    return [Ident("fips", canonical, full, make_attrs(revision=str(int(rev)) if rev else None))]


_IR_PREFIX = (
    r"(?:NIST\.IR\.|NISTIR[\s\-]?|NIST\s+IR\s+|NIST-\s?IR-"
    r"|(?:NIST\s+)?(?:Interagency|Internal)(?:\s+or\s+Internal|/Internal)?\s+Reports?\s+(?:\(NISTIR\)\s+)?"
    r"|(?<![A-Za-z\-])IR\s)"
)
_IR_NUM = (
    r"(?P<num>\d{4})(?!\d)(?P<tail>(?:(?:r\d{1,2}|-\d)(?!\d)|,?\s+(?i:rev(?:ision)?)\.?\s?\d{1,2}(?!\d)"
    r"|,?\s+(?i:vol(?:ume)?)\.?\s?(?:\d|IV|I{1,3})(?![A-Za-z\d]))*)"
)
IR_RE = re.compile(r"(?P<prefix>" + _IR_PREFIX + r")" + _IR_NUM)
IR_CONT = re.compile(LIST_SEP + r"(?P<prefix>" + _IR_PREFIX + r")?" + _IR_NUM)


def build_ir(m: re.Match, ctx: Ctx) -> list[Ident]:
    canonical = f"NISTIR {int(m.group('num'))}"
    q = _tail(m.group("tail"), "volume")  # the DOI's "-1" is the volume: NIST.IR.8011-1
    return [Ident("nistir", canonical, pub_full(canonical, q), make_attrs(**q))]


# --- the Cybersecurity Framework by name ---------------------------------------------------
CSF_NAME_RE = re.compile(
    r"(?P<name>Framework\s+for\s+Improving\s+Critical\s+Infrastructure\s+Cybersecurity|NIST\s+Cybersecurity\s+Framework"
    r"|Cybersecurity\s+Framework|\[NIST\s+CSF\]|NIST\s+CSF|(?<![A-Za-z\-])CSF(?![A-Za-z\-])"
    r"|NIST\.CSWP\.(?P<doi>\d{8})|cybersecurity-framework-(?P<doi0>\d{6}))"
    r"(?P<ver>,?\s+\(?(?:[Vv]ersion|v\.?)\s?(?P<v>\d\.\d)\)?|\s(?P<v2>[12]\.[01])(?![\d.]))?"
)


def build_csf_name(m: re.Match, ctx: Ctx) -> list[Ident]:
    version = m.group("v") or m.group("v2") or _k.CSF_DOI_VERSION.get(m.group("doi") or m.group("doi0") or "")
    full = f"CSF {version}" if version else "CSF"
    return [Ident("framework", "CSF", full, make_attrs(version=version))]


def cont_sp(m: re.Match, ctx: Ctx, prev: Ident) -> list[Ident]:
    return _sp_one(m, ctx, in_list=True)
