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
from collections.abc import Callable, Iterable

from docintel.identifiers import codes as _c
from docintel.identifiers import kinds as _k
from docintel.identifiers import pubs as _p
from docintel.identifiers.base import LIST_SEP, Ctx, Ident, IdentKind, Mention, clean
from docintel.identifiers.pubs import pub_full

__all__ = [
    "KINDS",
    "Ident",
    "IdentKind",
    "Mention",
    "clean",
    "container_ids",
    "external_references",
    "find_identifiers",
    "names_series",
    "normalize",
    "pub_full",
]


def _cont_plain(build: Callable[[re.Match, Ctx], list[Ident]]):
    return lambda m, ctx, prev: build(m, ctx)


#: The identifier kinds, in priority order (where two matches cover the same span, the longer
#: wins, then the earlier kind).
KINDS: list[IdentKind] = [
    IdentKind(
        "sp",
        _p.SP_RE,
        _p.build_sp,
        "NIST SP 800-53 Rev. 4, Special Publication 800-37, NIST.SP.800-53r4, "
        "SP800-53, 800-53 (bare: lists and qualified forms only)",
        ("revision", "volume", "part"),
        _p.SP_CONT,
    ),
    IdentKind(
        "fips",
        _p.FIPS_RE,
        _p.build_fips,
        "FIPS 199, FIPS PUB 199, FIPS Publication 200, FIPS 140-2, NIST.FIPS.199",
        ("revision",),
        _p.FIPS_CONT,
    ),
    IdentKind(
        "nistir",
        _p.IR_RE,
        _p.build_ir,
        "NISTIR 7298, NIST IR 7298 Revision 2, NIST.IR.8011-1, NISTIR8062 "
        "(an 'IR-4' control is not a NISTIR: four digits after a space)",
        ("revision", "volume"),
        _p.IR_CONT,
    ),
    IdentKind(
        "framework", _p.CSF_NAME_RE, _p.build_csf_name, "Cybersecurity Framework by name", ("version",)
    ),
    IdentKind(
        "csf_subcategory",
        _c.CSF_SUB_RE,
        _c.build_csf_sub,
        "PR.AC-1, RS.CO- 4, RS.CO-4:G1",
        ("category", "group"),
    ),
    IdentKind("csf_category", _c.CSF_CAT_RE, _c.build_csf_cat, "PR.AC, ID.SC", ("function",)),
    IdentKind(
        "control",
        _c.CTRL_RE,
        _c.build_control,
        "AC-2, AC-2 (1) = AC-2(1), AC-2 (1) (2), CP-2(4)(5), PM- 11, AC-07-z-02-z",
        ("family", "enhancement", "item"),
    ),
    IdentKind("control_family", _c.FAMILY_REF_RE, _c.build_family_ref, "AU Family", ("name",)),
    IdentKind(
        "requirement",
        _c.REQ_RE,
        _c.build_req,
        "SP 800-171 requirement 3.13.11, 3.1.8[a] (requirement context or inside SP 800-171/171A only)",
        ("objective",),
        _c.REQ_CONT,
        tuple(_k.REQ171_HOME),
    ),
    IdentKind(
        "cfr",
        _c.CFR_RE,
        _c.build_cfr,
        "45 CFR 164.312, 45 C.F.R. §§ 164.308(a)(1), 164.310(a)(2)(iv)",
        ("title", "section", "paragraph"),
        _c.CFR_CONT,
    ),
    IdentKind(
        "hipaa",
        _c.HIPAA_RE,
        _c.build_hipaa,
        "§ 164.308(a)(1), 164.310(a)(2)(iv) (45 CFR assumed)",
        ("title", "section", "paragraph"),
        _c.CFR_CONT,
    ),
    IdentKind("part_number", _c.PART_RE, _c.build_part, "BP-36-2 = BP36-2", ("family", "version")),
    IdentKind("contract", _c.CONTRACT_RE, _c.build_contract, "Contract No. GS-35F-0119Y"),
    IdentKind("exhibit", _c.EXHIBIT_RE, _c.build_exhibit, "Exhibit 10.1, Schedule A"),
    IdentKind("rfc", _c.RFC_RE, _c.build_rfc, "RFC 6749"),
    IdentKind("cve", _c.CVE_RE, _c.build_cve, "CVE-2021-44228"),
]
_CONT_BUILD = {
    "sp": _p.cont_sp,
    "requirement": _c.build_req_cont,
    "cfr": _c.build_cfr_cont,
    "hipaa": _c.build_cfr_cont,
}
for _kind in KINDS:
    _CONT_BUILD.setdefault(_kind.name, _cont_plain(_kind.build))


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
    ctx = Ctx(text, permissive, frozenset(home), named)
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
            sep = re.match(LIST_SEP, text[end : c.end()])
            found += [(i, end + (sep.end() if sep else 0), c.end()) for i in more]
            end = c.end()
        for ident, s, e in found:
            out.append(Mention(ident, _squash(text[s:e]), s, e))
        taken_end = end
    return out


_CFR_KEY = re.compile(r"^(?P<part>\d{1,2} CFR \d{1,4})(?P<sec>\.\d{1,4})?(?P<par>\(.*)?$")


def container_ids(ident_id: str) -> list[str]:
    """The ids that contain ``ident_id``, most specific first: "45 CFR 164.308(a)(1)" is in
    "45 CFR 164.308", which is in "45 CFR 164" (a document that *is* Part 164 holds it)."""
    m = _CFR_KEY.match(ident_id or "")
    if not m:
        return []
    out = [m.group("part") + m.group("sec")] if m.group("sec") and m.group("par") else []
    return out + ([m.group("part")] if m.group("sec") else [])


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
