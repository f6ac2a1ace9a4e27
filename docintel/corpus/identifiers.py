"""Identifiers normalized to one spelling: the kinds as data, the normalizer and the finder.

A document cites another one by a name with a fixed shape: "NIST SP 800-53 Rev. 4",
"FIPS PUB 199", "PR.AC-1", "AC-2 (1)", "§ 164.308(a)(1)", "BP36-2". Each shape is one
:class:`IdentKind` of :data:`KINDS`: a regex, a normalizer that rewrites the match in one
canonical spelling (the key the link graph joins on: "SP 800-53") plus the full form with
its qualifiers ("SP 800-53 Rev. 4") and attributes (revision, volume, part, enhancement).

Links are made on the canonical id and the revision is kept as an attribute, so "SP 800-53"
and "NIST.SP.800-53r4" reach the same document and the answer can still say which
edition each citation meant. The spelling families and hazards handled here were measured
on the NIST corpus (``../shared/corpus/nist/identifiers.md``); every rule holds for any
document that uses these identifier systems, none names a file.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from docintel.corpus import identkinds as _k

Attrs = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Ident:
    """One identifier in its canonical spelling.

    ``canonical`` is the link key ("SP 800-53", "FIPS 140", "AC-2", "45 CFR 164.308(a)(1)");
    ``full`` adds the qualifiers written with it ("SP 800-53 Rev. 4", "FIPS 140-2", "AC-2(1)");
    ``attrs`` holds them one by one (revision, volume, part, enhancement, ...).
    """

    kind: str
    canonical: str
    full: str
    attrs: Attrs = ()

    def attr(self, name: str) -> str | None:
        """The value of attribute ``name``, or None when the mention did not carry it."""
        return dict(self.attrs).get(name)

    @property
    def revision(self) -> str | None:
        return self.attr("revision")


@dataclass(frozen=True)
class Mention:
    """One identifier found in a text: what it is, how it was spelled, where."""

    ident: Ident
    surface: str
    start: int
    end: int


@dataclass(frozen=True)
class IdentKind:
    """One identifier system: how it is written and how it is normalized.

    ``build(match, ctx)`` returns the identifiers one match names (a list "800-30, 800-39"
    or an enhancement run "AC-2 (1) (2)" names several) or ``[]`` to reject the match
    (a footnote glued to a number, a category that does not exist). ``cont`` continues a
    list after a match ("Special Publications 800-30, 800-39 and 800-53"). ``home`` lists
    the publications inside which a context-bound kind needs no textual context.
    """

    name: str
    regex: re.Pattern
    build: Callable[[re.Match, _Ctx], list[Ident]]
    description: str
    attributes: tuple[str, ...] = ()
    cont: re.Pattern | None = None
    home: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Ctx:
    """What the finder knows around a match: the text, and whether context-bound forms count."""

    text: str
    permissive: bool  # normalize(): the caller says the surface is an identifier
    home: frozenset[str]  # canonical ids of the publication the text belongs to
    series_named: bool  # the text names the SP series with a prefix somewhere


def _attrs(**kw: str | None) -> Attrs:
    return tuple((k, v) for k, v in kw.items() if v)


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
_LIST_SEP = r"(?:\s*,\s*(?:and\s+|or\s+|&\s*)?|\s+(?:and|or|&)\s+)"
_SP_RE = re.compile(r"(?:(?P<prefix>" + _SP_PREFIX + r")|(?<![\w\-./+#$]))" + _SP_NUM + _TAIL)
_SP_CONT = re.compile(_LIST_SEP + r"(?P<prefix>" + _SP_PREFIX + r")?" + _SP_NUM + _TAIL)

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


def _pub_full(canonical: str, q: dict[str, str]) -> str:
    full = canonical
    if q.get("volume"):
        full += f" Vol. {q['volume']}"
    if q.get("part"):
        full += f" Part {q['part']}"
    if q.get("revision"):
        full += f" Rev. {q['revision']}"
    return full


def _sp_one(m: re.Match, ctx: _Ctx, *, in_list: bool) -> list[Ident]:
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
    return [Ident("sp", canonical, _pub_full(canonical, q), _attrs(**q))]


def _build_sp(m: re.Match, ctx: _Ctx) -> list[Ident]:
    return _sp_one(m, ctx, in_list=False)


_FIPS_PREFIX = (
    r"(?:NIST\.FIPS\.|Federal\s+Information\s+Processing\s+Standards?\s+(?:\(FIPS\)\s+)?"
    r"(?:Publications?\s+|PUBS?\.?\s+)?(?:\(FIPS\)\s+)?|(?<![A-Za-z])FIPS[\s\-]?(?:PUBS?\.?\s?|Publications?\s+|Pub\.?\s?)?)"
)
_FIPS_NUM = r"(?P<num>\d{1,3})(?P<rev>\s?-\s?\d{1,2})?(?!\d)"
_FIPS_RE = re.compile(r"(?P<prefix>" + _FIPS_PREFIX + r")" + _FIPS_NUM)
_FIPS_CONT = re.compile(_LIST_SEP + r"(?P<prefix>" + _FIPS_PREFIX + r")?" + _FIPS_NUM)


def _build_fips(m: re.Match, ctx: _Ctx) -> list[Ident]:
    num = int(m.group("num"))
    if not 1 <= num <= _k.FIPS_MAX:
        return []
    rev = re.sub(r"\D", "", m.group("rev") or "")
    canonical = f"FIPS {num}"
    full = f"{canonical}-{int(rev)}" if rev else canonical
    return [Ident("fips", canonical, full, _attrs(revision=str(int(rev)) if rev else None))]


_IR_PREFIX = (
    r"(?:NIST\.IR\.|NISTIR[\s\-]?|NIST\s+IR\s+|NIST-\s?IR-"
    r"|(?:NIST\s+)?(?:Interagency|Internal)(?:\s+or\s+Internal|/Internal)?\s+Reports?\s+(?:\(NISTIR\)\s+)?"
    r"|(?<![A-Za-z\-])IR\s)"
)
_IR_NUM = (
    r"(?P<num>\d{4})(?!\d)(?P<tail>(?:(?:r\d{1,2}|-\d)(?!\d)|,?\s+(?i:rev(?:ision)?)\.?\s?\d{1,2}(?!\d)"
    r"|,?\s+(?i:vol(?:ume)?)\.?\s?(?:\d|IV|I{1,3})(?![A-Za-z\d]))*)"
)
_IR_RE = re.compile(r"(?P<prefix>" + _IR_PREFIX + r")" + _IR_NUM)
_IR_CONT = re.compile(_LIST_SEP + r"(?P<prefix>" + _IR_PREFIX + r")?" + _IR_NUM)


def _build_ir(m: re.Match, ctx: _Ctx) -> list[Ident]:
    canonical = f"NISTIR {int(m.group('num'))}"
    q = _tail(m.group("tail"), "volume")  # the DOI's "-1" is the volume: NIST.IR.8011-1
    return [Ident("nistir", canonical, _pub_full(canonical, q), _attrs(**q))]


# --- the Cybersecurity Framework by name, CSF subcategory and category ids -----------------
_CSF_NAME_RE = re.compile(
    r"(?P<name>Framework\s+for\s+Improving\s+Critical\s+Infrastructure\s+Cybersecurity|NIST\s+Cybersecurity\s+Framework"
    r"|Cybersecurity\s+Framework|\[NIST\s+CSF\]|NIST\s+CSF|(?<![A-Za-z\-])CSF(?![A-Za-z\-])"
    r"|NIST\.CSWP\.(?P<doi>\d{8})|cybersecurity-framework-(?P<doi0>\d{6}))"
    r"(?P<ver>,?\s+\(?(?:[Vv]ersion|v\.?)\s?(?P<v>\d\.\d)\)?|\s(?P<v2>[12]\.[01])(?![\d.]))?"
)


def _build_csf_name(m: re.Match, ctx: _Ctx) -> list[Ident]:
    version = m.group("v") or m.group("v2") or _k.CSF_DOI_VERSION.get(m.group("doi") or m.group("doi0") or "")
    full = f"CSF {version}" if version else "CSF"
    return [Ident("framework", "CSF", full, _attrs(version=version))]


_CSF_SUB_RE = re.compile(
    r"(?<![A-Za-z.])(?P<fn>ID|PR|DE|RS|RC|GV)\.\s?-?(?P<cat>[A-Z]{2})\s?-\s?(?P<n>\d{1,2})(?!\d)"
    r"(?P<grp>[:.]G\d{1,2})?"
)
_CSF_CAT_RE = re.compile(
    r"(?<![A-Za-z.])(?P<fn>ID|PR|DE|RS|RC|GV)\.(?P<cat>[A-Z]{2})(?![-A-Za-z\d]|\s?-\s?\d)"
)


def _build_csf_sub(m: re.Match, ctx: _Ctx) -> list[Ident]:
    fn, cat, n = m.group("fn"), m.group("cat"), int(m.group("n"))
    if cat not in _k.CSF_CATEGORIES.get(fn, ()):
        return []  # "RC.MI-1": there is no RC.MI category
    # CSF 2.0 writes two digits ("GV.OC-01"); categories that exist in 1.1 keep "PR.AC-1"
    num = f"{n:02d}" if f"{fn}.{cat}" in _k.CSF_V2_ONLY else str(n)
    canonical = f"{fn}.{cat}-{num}"
    grp = (m.group("grp") or "")[1:]
    return [Ident("csf_subcategory", canonical, canonical, _attrs(category=f"{fn}.{cat}", group=grp))]


def _build_csf_cat(m: re.Match, ctx: _Ctx) -> list[Ident]:
    fn, cat = m.group("fn"), m.group("cat")
    if cat not in _k.CSF_CATEGORIES.get(fn, ()):
        return []
    return [Ident("csf_category", f"{fn}.{cat}", f"{fn}.{cat}", _attrs(function=fn))]


# --- SP 800-53 controls ------------------------------------------------------------------
_FAMS = "|".join(_k.CONTROL_FAMILIES)
_CTRL_RE = re.compile(
    r"(?<![A-Za-z.\-/])(?P<fam>" + _FAMS + r")-\s?(?P<n>0?\d{1,2})(?!\d|\.\d)"
    r"(?P<enh>(?:\s?\(\s?\d{1,2}\s?\))*)"
    r"(?P<code>-[a-z](?:-\d{2}-[a-z])?(?![A-Za-z\d]))?"
)
_FAMILY_REF_RE = re.compile(r"(?<![A-Za-z.\-/])(?P<fam>" + _FAMS + r")\s+[Ff]amily\b")


def _build_control(m: re.Match, ctx: _Ctx) -> list[Ident]:
    canonical = f"{m.group('fam')}-{int(m.group('n'))}"
    enh = [str(int(e)) for e in re.findall(r"\d{1,2}", m.group("enh") or "")]
    item = None
    code = m.group("code") or ""
    if code:
        # NISTIR 8011's sortable codes: "AC-07-z-02-z" = AC-7(2); "CM-08-a" = CM-8 item a
        parts = code.strip("-").split("-")
        if len(parts) == 3:
            enh.append(str(int(parts[1])))
            item = parts[2] if parts[2] != "z" else None
        elif parts[0] != "z":
            item = parts[0]
    if not enh:
        return [Ident("control", canonical, canonical, _attrs(family=m.group("fam"), item=item))]
    return [
        Ident(
            "control", canonical, f"{canonical}({e})", _attrs(family=m.group("fam"), enhancement=e, item=item)
        )
        for e in enh
    ]


def _build_family_ref(m: re.Match, ctx: _Ctx) -> list[Ident]:
    fam = m.group("fam")
    return [Ident("control_family", f"{fam} family", f"{fam} family", _attrs(name=_k.CONTROL_FAMILIES[fam]))]


# --- SP 800-171 security requirements: only in requirement context -------------------------
_REQ_NUM = r"(?<![\d.])(?P<req>3\.(?:1[0-4]|[1-9])\.\d{1,2})(?!\d|\.\d)(?P<obj>\[[a-z]\](?:\[\d{1,2}\])?)?"
_REQ_RE = re.compile(_REQ_NUM)
_REQ_CONT = re.compile(_LIST_SEP + _REQ_NUM)
_REQ_CONTEXT = re.compile(
    r"(?:800-171A?(?:\s?(?:r\d|,?\s(?i:rev(?:ision)?)\.?\s?\d))?,?\s+(?:(?:basic|derived|security)\s+)*"
    r"(?:requirements?\s+)?|\b(?i:requirements?)\s+(?:ID\s+|No\.\s?)?)$"
)


def _build_req(m: re.Match, ctx: _Ctx) -> list[Ident]:
    if not (
        ctx.permissive
        or m.group("obj")
        or ctx.home & set(_k.REQ171_HOME)
        or _REQ_CONTEXT.search(ctx.text[max(0, m.start() - 60) : m.start()])
    ):
        return []  # "3.2.1" is a section number everywhere else
    obj = (m.group("obj") or "")[1:-1].replace("][", ".") or None
    return [
        Ident("requirement", m.group("req"), m.group("req"), _attrs(publication="SP 800-171", objective=obj))
    ]


def _build_req_cont(m: re.Match, ctx: _Ctx, prev: Ident) -> list[Ident]:
    return _build_req(m, _Ctx(ctx.text, True, ctx.home, ctx.series_named))


# --- CFR sections (HIPAA is 45 CFR Parts 160 and 164) ---------------------------------------
_PARA = r"(?P<par>(?:\.?\((?:[a-z]{1,4}|\d{1,2}|[A-Z])\))*)"
_CFR_RE = re.compile(
    r"(?P<title>\d{1,2})\s+C\.?\s?F\.?\s?R\.?\s*(?:[Pp]arts?\s+|§§?\s*|[Ss]ec(?:tion)?s?\.?\s*)?"
    r"(?P<sec>\d{1,4}(?:\.\d{1,4})?)(?![\d])" + _PARA
)
_CFR_CONT = re.compile(
    r"(?:\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+)(?:§\s?)?(?P<sec>\d{1,4}\.\d{1,4})(?!\d)" + _PARA
)
_HIPAA_RE = re.compile(r"(?P<sign>§§?\s?)?(?<![\d.])(?P<sec>16[04]\.\d{3})(?![\d])" + _PARA)


def _cfr_ident(title: str, sec: str, par: str) -> Ident:
    par = (par or "").replace(".", "")  # "164.308.(a)(7)": a stray dot
    canonical = f"{int(title)} CFR {sec}{par}"
    return Ident("cfr", canonical, canonical, _attrs(title=str(int(title)), section=sec, paragraph=par))


def _build_cfr(m: re.Match, ctx: _Ctx) -> list[Ident]:
    return [_cfr_ident(m.group("title"), m.group("sec"), m.group("par"))]


def _build_cfr_cont(m: re.Match, ctx: _Ctx, prev: Ident) -> list[Ident]:
    # a list "45 C.F.R. §§ 164.308(a)(1), 164.310(a)(2)(iv)" keeps the title of its head
    return [_cfr_ident(prev.attr("title") or "45", m.group("sec"), m.group("par"))]


def _build_hipaa(m: re.Match, ctx: _Ctx) -> list[Ident]:
    sec = m.group("sec")
    if sec not in _k.HIPAA_SECTIONS and not m.group("sign"):
        return []  # "164.512" alone may be a number; a listed section or a § makes it a section
    return [_cfr_ident("45", sec, m.group("par"))]


# --- part numbers, contracts and exhibits, RFCs, CVEs -------------------------------------
_PART_RE = re.compile(r"(?<![A-Za-z0-9.\-/])(?P<fam>[A-Z]{2})-?(?P<size>\d{2})-(?P<ver>\d)(?![\d\-]|\.\d)")
_CONTRACT_RE = re.compile(
    r"\b(?P<what>Contract|Agreement|Task\s+Order|Purchase\s+Order|Order)\s+(?:No\.?|Number|#)\s?:?\s?"
    r"(?P<id>(?=[A-Z0-9\-]*\d)[A-Z0-9]{1,12}(?:-[A-Z0-9]{1,12}){0,5})(?![A-Za-z0-9\-])"
)
_EXHIBIT_RE = re.compile(
    r"\b(?P<what>Exhibit|Schedule)\s+(?P<id>[A-Z]{1,2}(?:-\d{1,3})?|\d{1,3}(?:\.\d{1,3})?[A-Z]?)\b"
)
_RFC_RE = re.compile(r"\b(?:IETF\s+)?RFC\s?-?(?P<n>\d{3,5})(?!\d)")
_CVE_RE = re.compile(r"\bCVE-\s?(?P<y>(?:19|20)\d{2})-\s?(?P<n>\d{4,7})(?!\d)")


def _build_part(m: re.Match, ctx: _Ctx) -> list[Ident]:
    canonical = f"{m.group('fam')}-{m.group('size')}-{m.group('ver')}"
    return [Ident("part_number", canonical, canonical, _attrs(family=m.group("fam"), version=m.group("ver")))]


def _build_contract(m: re.Match, ctx: _Ctx) -> list[Ident]:
    what = (
        "Contract" if m.group("what") in ("Contract", "Agreement") else re.sub(r"\s+", " ", m.group("what"))
    )
    canonical = f"{what} {m.group('id')}"
    return [Ident("contract", canonical, canonical)]


def _build_exhibit(m: re.Match, ctx: _Ctx) -> list[Ident]:
    canonical = f"{m.group('what')} {m.group('id')}"
    return [Ident("exhibit", canonical, canonical)]


def _build_rfc(m: re.Match, ctx: _Ctx) -> list[Ident]:
    canonical = f"RFC {int(m.group('n'))}"
    return [Ident("rfc", canonical, canonical)]


def _build_cve(m: re.Match, ctx: _Ctx) -> list[Ident]:
    canonical = f"CVE-{m.group('y')}-{m.group('n')}"
    return [Ident("cve", canonical, canonical)]


def _cont_sp(m: re.Match, ctx: _Ctx, prev: Ident) -> list[Ident]:
    return _sp_one(m, ctx, in_list=True)


def _cont_plain(build: Callable[[re.Match, _Ctx], list[Ident]]):
    return lambda m, ctx, prev: build(m, ctx)


#: The identifier kinds, in priority order (where two matches cover the same span, the longer
#: wins, then the earlier kind).
KINDS: list[IdentKind] = [
    IdentKind(
        "sp",
        _SP_RE,
        _build_sp,
        "NIST SP 800-53 Rev. 4, Special Publication 800-37, NIST.SP.800-53r4, "
        "SP800-53, 800-53 (bare: lists and qualified forms only)",
        ("revision", "volume", "part"),
        _SP_CONT,
    ),
    IdentKind(
        "fips",
        _FIPS_RE,
        _build_fips,
        "FIPS 199, FIPS PUB 199, FIPS Publication 200, FIPS 140-2, NIST.FIPS.199",
        ("revision",),
        _FIPS_CONT,
    ),
    IdentKind(
        "nistir",
        _IR_RE,
        _build_ir,
        "NISTIR 7298, NIST IR 7298 Revision 2, NIST.IR.8011-1, NISTIR8062 "
        "(an 'IR-4' control is not a NISTIR: four digits after a space)",
        ("revision", "volume"),
        _IR_CONT,
    ),
    IdentKind("framework", _CSF_NAME_RE, _build_csf_name, "Cybersecurity Framework by name", ("version",)),
    IdentKind(
        "csf_subcategory", _CSF_SUB_RE, _build_csf_sub, "PR.AC-1, RS.CO- 4, RS.CO-4:G1", ("category", "group")
    ),
    IdentKind("csf_category", _CSF_CAT_RE, _build_csf_cat, "PR.AC, ID.SC", ("function",)),
    IdentKind(
        "control",
        _CTRL_RE,
        _build_control,
        "AC-2, AC-2 (1) = AC-2(1), AC-2 (1) (2), CP-2(4)(5), PM- 11, AC-07-z-02-z",
        ("family", "enhancement", "item"),
    ),
    IdentKind("control_family", _FAMILY_REF_RE, _build_family_ref, "AU Family", ("name",)),
    IdentKind(
        "requirement",
        _REQ_RE,
        _build_req,
        "SP 800-171 requirement 3.13.11, 3.1.8[a] (requirement context or inside SP 800-171/171A only)",
        ("objective",),
        _REQ_CONT,
        tuple(_k.REQ171_HOME),
    ),
    IdentKind(
        "cfr",
        _CFR_RE,
        _build_cfr,
        "45 CFR 164.312, 45 C.F.R. §§ 164.308(a)(1), 164.310(a)(2)(iv)",
        ("title", "section", "paragraph"),
        _CFR_CONT,
    ),
    IdentKind(
        "hipaa",
        _HIPAA_RE,
        _build_hipaa,
        "§ 164.308(a)(1), 164.310(a)(2)(iv) (45 CFR assumed)",
        ("title", "section", "paragraph"),
        _CFR_CONT,
    ),
    IdentKind("part_number", _PART_RE, _build_part, "BP-36-2 = BP36-2", ("family", "version")),
    IdentKind("contract", _CONTRACT_RE, _build_contract, "Contract No. GS-35F-0119Y"),
    IdentKind("exhibit", _EXHIBIT_RE, _build_exhibit, "Exhibit 10.1, Schedule A"),
    IdentKind("rfc", _RFC_RE, _build_rfc, "RFC 6749"),
    IdentKind("cve", _CVE_RE, _build_cve, "CVE-2021-44228"),
]
_CONT_BUILD = {
    "sp": _cont_sp,
    "requirement": _build_req_cont,
    "cfr": _build_cfr_cont,
    "hipaa": _build_cfr_cont,
}
for _kind in KINDS:
    _CONT_BUILD.setdefault(_kind.name, _cont_plain(_kind.build))


def clean(text: str) -> str:
    """NFKC and dash variants folded, so "SP 800‑53" (a non-breaking hyphen) is "SP 800-53"."""
    text = unicodedata.normalize("NFKC", text or "")
    return re.sub("[\u2010\u2011\u2012\u2013\u2212\u00ad]", "-", text)  # not the em dash: "B\u2014CSF"


def _squash(s: str) -> str:
    return re.sub(r"\s+", " ", s).strip()


_SERIES_RE = re.compile(r"(?:\bSPs?|Special Publications?)\s?(?:\(SPs?\)\s)?800\s?-", re.I)


def names_series(text: str) -> bool:
    """Whether ``text`` names the SP 800 series with a prefix ("SP 800-", "Special Publication 800-")."""
    return bool(_SERIES_RE.search(clean(text)))


def find_identifiers(
    text: str, *, home: Iterable[str] = (), permissive: bool = False, series_named: bool | None = None
) -> list[Mention]:
    """Every identifier in ``text``, in order, canonical and with its surface spelling and span.

    ``home``: canonical ids of the publication ``text`` belongs to (its self-identity), so
    that context-bound kinds (SP 800-171 requirement ids) count inside their own publication.
    ``permissive``: accept context-bound forms anywhere (the caller knows it holds an id).
    ``series_named``: the surrounding document names the SP series with a prefix, so a bare
    "800-53" is a publication (default: whether ``text`` itself does, see :func:`names_series`).
    Spans index ``clean(text)``, which has the same length as ``text`` for all but NFKC-expanded
    characters.
    """
    text = clean(text)
    named = names_series(text) if series_named is None else series_named
    ctx = _Ctx(text, permissive, frozenset(home), named)
    hits = []
    for prio, kind in enumerate(KINDS):
        for m in kind.regex.finditer(text):
            if m.end() > m.start():
                hits.append((m.start(), -(m.end() - m.start()), prio, m, kind))
    hits.sort(key=lambda h: (h[0], h[1], h[2]))
    out: list[Mention] = []
    taken_end = -1
    for start, _, _, m, kind in hits:
        if start < taken_end:
            continue
        idents = kind.build(m, ctx)
        if not idents:
            continue
        end = m.end()
        found = [(i, start, end) for i in idents]
        while kind.cont is not None:  # a list: "800-30, 800-39 and 800-53"
            c = kind.cont.match(text, end)
            more = _CONT_BUILD[kind.name](c, ctx, found[-1][0]) if c else []
            if not more:
                break
            sep = re.match(_LIST_SEP, text[end : c.end()])
            found += [(i, end + (sep.end() if sep else 0), c.end()) for i in more]
            end = c.end()
        for ident, s, e in found:
            out.append(Mention(ident, _squash(text[s:e]), s, e))
        taken_end = end
    return out


def normalize(surface: str) -> Ident | None:
    """The identifier ``surface`` spells, in canonical form; None when it is not one.

    ``normalize("NIST.SP.800-53r4") == Ident("sp", "SP 800-53", "SP 800-53 Rev. 4", (("revision", "4"),))``.
    Context-bound forms are accepted (the caller says this is an identifier): "800-53", "3.1.8".
    """
    found = find_identifiers(surface, permissive=True)
    if not found:
        return None
    return max(found, key=lambda m: (m.end - m.start, -m.start)).ident


#: Kinds that name a publication or a document outside the citing one: external references.
EXTERNAL_KINDS = ("sp", "fips", "nistir", "framework", "cfr", "hipaa", "rfc")


def external_references(text: str) -> list[dict]:
    """External references in ``text`` in the row shape of ``parsing.refpatterns.find_references``.

    ``ref_target`` is the canonical full form ("SP 800-90 Rev. 1"), so a single-document
    external reference and a corpus link resolve through one normalizer.
    """
    out = []
    for m in find_identifiers(text):
        if m.ident.kind in EXTERNAL_KINDS:
            out.append(
                {
                    "start": m.start,
                    "end": m.end,
                    "anchor_text": m.surface,
                    "ref_type": "external",
                    "ref_target": m.ident.full,
                    "sub_selector": None,
                    "pattern": f"ident:{m.ident.kind}",
                }
            )
    return out
