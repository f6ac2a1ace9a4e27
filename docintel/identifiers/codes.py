"""Code identifiers: CSF ids, SP 800-53 controls, SP 800-171 requirements, CFR sections,
part numbers, contracts and exhibits, RFCs and CVEs."""

from __future__ import annotations

import re

from docintel.identifiers import kinds as _k
from docintel.identifiers.base import LIST_SEP, Ctx, Ident, make_attrs

# --- CSF subcategory and category ids ----------------------------------------------------
CSF_SUB_RE = re.compile(
    r"(?<![A-Za-z.])(?P<fn>ID|PR|DE|RS|RC|GV)\.\s?-?(?P<cat>[A-Z]{2})\s?-\s?(?P<n>\d{1,2})(?!\d)"
    r"(?P<grp>[:.]G\d{1,2})?"
)
CSF_CAT_RE = re.compile(
    r"(?<![A-Za-z.])(?P<fn>ID|PR|DE|RS|RC|GV)\.(?P<cat>[A-Z]{2})(?![-A-Za-z\d]|\s?-\s?\d)"
)


def build_csf_sub(m: re.Match, ctx: Ctx) -> list[Ident]:
    fn, cat, n = m.group("fn"), m.group("cat"), int(m.group("n"))
    if cat not in _k.CSF_CATEGORIES.get(fn, ()):
        return []  # "RC.MI-1": there is no RC.MI category
    # CSF 2.0 writes two digits ("GV.OC-01"); categories that exist in 1.1 keep "PR.AC-1"
    num = f"{n:02d}" if f"{fn}.{cat}" in _k.CSF_V2_ONLY else str(n)
    canonical = f"{fn}.{cat}-{num}"
    grp = (m.group("grp") or "")[1:]
    return [Ident("csf_subcategory", canonical, canonical, make_attrs(category=f"{fn}.{cat}", group=grp))]


def build_csf_cat(m: re.Match, ctx: Ctx) -> list[Ident]:
    fn, cat = m.group("fn"), m.group("cat")
    if cat not in _k.CSF_CATEGORIES.get(fn, ()):
        return []
    return [Ident("csf_category", f"{fn}.{cat}", f"{fn}.{cat}", make_attrs(function=fn))]


# --- SP 800-53 controls ------------------------------------------------------------------
_FAMS = "|".join(_k.CONTROL_FAMILIES)
CTRL_RE = re.compile(
    r"(?<![A-Za-z.\-/])(?P<fam>" + _FAMS + r")-\s?(?P<n>0?\d{1,2})(?!\d|\.\d)"
    r"(?P<enh>(?:\s?\(\s?\d{1,2}\s?\))*)"
    r"(?P<code>-[a-z](?:-\d{2}-[a-z])?(?![A-Za-z\d]))?"
)
FAMILY_REF_RE = re.compile(r"(?<![A-Za-z.\-/])(?P<fam>" + _FAMS + r")\s+[Ff]amily\b")


def build_control(m: re.Match, ctx: Ctx) -> list[Ident]:
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
        return [Ident("control", canonical, canonical, make_attrs(family=m.group("fam"), item=item))]
    return [
        Ident(
            "control",
            canonical,
            f"{canonical}({e})",
            make_attrs(family=m.group("fam"), enhancement=e, item=item),
        )
        for e in dict.fromkeys(enh)  # "MA-3(1)(1)": enhancement 1, its item (1); one mention
    ]


def build_family_ref(m: re.Match, ctx: Ctx) -> list[Ident]:
    fam = m.group("fam")
    return [
        Ident("control_family", f"{fam} family", f"{fam} family", make_attrs(name=_k.CONTROL_FAMILIES[fam]))
    ]


# --- SP 800-171 security requirements: only in requirement context -------------------------
_REQ_NUM = r"(?<![\d.])(?P<req>3\.(?:1[0-4]|[1-9])\.\d{1,2})(?!\d|\.\d)(?P<obj>\[[a-z]\](?:\[\d{1,2}\])?)?"
REQ_RE = re.compile(_REQ_NUM)
REQ_CONT = re.compile(LIST_SEP + _REQ_NUM)
_REQ_CONTEXT = re.compile(
    r"(?:800-171A?(?:\s?(?:r\d|,?\s(?i:rev(?:ision)?)\.?\s?\d))?,?\s+(?:(?:basic|derived|security)\s+)*"
    r"(?:requirements?\s+)?|\b(?i:requirements?)\s+(?:ID\s+|No\.\s?)?)$"
)


def build_req(m: re.Match, ctx: Ctx) -> list[Ident]:
    if not (
        ctx.permissive
        or m.group("obj")
        or ctx.home & set(_k.REQ171_HOME)
        or _REQ_CONTEXT.search(ctx.text[max(0, m.start() - 60) : m.start()])
    ):
        return []  # "3.2.1" is a section number everywhere else
    obj = (m.group("obj") or "")[1:-1].replace("][", ".") or None
    return [
        Ident(
            "requirement", m.group("req"), m.group("req"), make_attrs(publication="SP 800-171", objective=obj)
        )
    ]


def build_req_cont(m: re.Match, ctx: Ctx, prev: Ident) -> list[Ident]:
    return build_req(m, Ctx(ctx.text, True, ctx.home, ctx.series_named))


# --- CFR sections (HIPAA is 45 CFR Parts 160 and 164) ---------------------------------------
_PARA = r"(?P<par>(?:\.?\((?:[a-z]{1,4}|\d{1,2}|[A-Z])\))*)"
CFR_RE = re.compile(
    r"(?P<title>\d{1,2})\s+C\.?\s?F\.?\s?R\.?\s*(?:[Pp]arts?\s+|§§?\s*|[Ss]ec(?:tion)?s?\.?\s*)?"
    r"(?P<sec>\d{1,4}(?:\.\d{1,4})?)(?![\d])" + _PARA
)
CFR_CONT = re.compile(
    r"(?:\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+)(?:§\s?)?(?P<sec>\d{1,4}\.\d{1,4})(?!\d)" + _PARA
)
HIPAA_RE = re.compile(r"(?P<sign>§§?\s?)?(?<![\d.])(?P<sec>16[04]\.\d{3})(?![\d])" + _PARA)


def _cfr_ident(title: str, sec: str, par: str) -> Ident:
    par = (par or "").replace(".", "")  # "164.308.(a)(7)": a stray dot
    canonical = f"{int(title)} CFR {sec}{par}"
    return Ident("cfr", canonical, canonical, make_attrs(title=str(int(title)), section=sec, paragraph=par))


def build_cfr(m: re.Match, ctx: Ctx) -> list[Ident]:
    return [_cfr_ident(m.group("title"), m.group("sec"), m.group("par"))]


def build_cfr_cont(m: re.Match, ctx: Ctx, prev: Ident) -> list[Ident]:
    # a list "45 C.F.R. §§ 164.308(a)(1), 164.310(a)(2)(iv)" keeps the title of its head
    return [_cfr_ident(prev.attr("title") or "45", m.group("sec"), m.group("par"))]


def build_hipaa(m: re.Match, ctx: Ctx) -> list[Ident]:
    sec = m.group("sec")
    if sec not in _k.HIPAA_SECTIONS and not m.group("sign"):
        return []  # "164.512" alone may be a number; a listed section or a § makes it a section
    return [_cfr_ident("45", sec, m.group("par"))]


# --- part numbers, contracts and exhibits, RFCs, CVEs -------------------------------------
PART_RE = re.compile(r"(?<![A-Za-z0-9.\-/])(?P<fam>[A-Z]{2})-?(?P<size>\d{2})-(?P<ver>\d)(?![\d\-]|\.\d)")
CONTRACT_RE = re.compile(
    r"\b(?P<what>Contract|Agreement|Task\s+Order|Purchase\s+Order|Order)\s+(?:No\.?|Number|#)\s?:?\s?"
    r"(?P<id>(?=[A-Z0-9\-]*\d)[A-Z0-9]{1,12}(?:-[A-Z0-9]{1,12}){0,5})(?![A-Za-z0-9\-])"
)
EXHIBIT_RE = re.compile(
    r"\b(?P<what>Exhibit|Schedule)\s+(?P<id>[A-Z]{1,2}(?:-\d{1,3})?|\d{1,3}(?:\.\d{1,3})?[A-Z]?)\b"
)
RFC_RE = re.compile(r"\b(?:(?:IETF\s+)?RFC\s?-?|Request\s+for\s+Comments:?\s?)(?P<n>\d{3,5})(?!\d)")
CVE_RE = re.compile(r"\bCVE-\s?(?P<y>(?:19|20)\d{2})-\s?(?P<n>\d{4,7})(?!\d)")


def build_part(m: re.Match, ctx: Ctx) -> list[Ident]:
    canonical = f"{m.group('fam')}-{m.group('size')}-{m.group('ver')}"
    return [
        Ident("part_number", canonical, canonical, make_attrs(family=m.group("fam"), version=m.group("ver")))
    ]


def build_contract(m: re.Match, ctx: Ctx) -> list[Ident]:
    what = (
        "Contract" if m.group("what") in ("Contract", "Agreement") else re.sub(r"\s+", " ", m.group("what"))
    )
    canonical = f"{what} {m.group('id')}"
    return [Ident("contract", canonical, canonical)]


def build_exhibit(m: re.Match, ctx: Ctx) -> list[Ident]:
    canonical = f"{m.group('what')} {m.group('id')}"
    return [Ident("exhibit", canonical, canonical)]


def build_rfc(m: re.Match, ctx: Ctx) -> list[Ident]:
    canonical = f"RFC {int(m.group('n'))}"
    return [Ident("rfc", canonical, canonical)]


def build_cve(m: re.Match, ctx: Ctx) -> list[Ident]:
    canonical = f"CVE-{m.group('y')}-{m.group('n')}"
    return [Ident("cve", canonical, canonical)]
