"""Publication identity, status and content hash of a parsed document.

Identity kinds are data (:data:`KINDS`): a regular expression over the first pages' text and a
template for the canonical id. One normalizer (:func:`canonical`) serves both sides: a
document's own identity and a reference to it written in another document ("as specified
in SP 800-53"), so the two meet on one spelling.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from docintel.text import normalize

_ROMAN = {"I": 1, "II": 2, "III": 3, "IV": 4, "V": 5, "VI": 6}


@dataclass(frozen=True)
class Kind:
    name: str
    pattern: str  # group "num" is the number; optional "rev" / "vol" groups
    template: str  # canonical id, e.g. "SP {num}"


_REV = r"(?:[\s,]+(?:Rev(?:ision|\.)?|R)\s*(?P<rev>\d+))?"
_VOL = r"(?:[\s,]+Vol(?:ume|\.)?\s+(?P<vol>[IVX]+|\d+)\b)?"
_VOL2 = _VOL.replace("vol", "vol2")

#: Publication identity kinds, tried in order; the earliest match on the first pages wins.
KINDS: tuple[Kind, ...] = (
    Kind(
        "nist_sp",
        r"\b(?:NIST\s+)?(?:Special\s+Publication|SP)\s*(?P<num>\d{3}-\d+[A-Z]?(?:-\d+)?)"
        + _VOL
        + _REV
        + _VOL2,
        "SP {num}",
    ),
    Kind(
        "nistir",
        r"\b(?:NISTIR|NIST\s+(?:Interagency|Internal)\s+Report)\s+(?P<num>\d{4})" + _VOL + _REV + _VOL2,
        "NISTIR {num}",
    ),
    Kind("fips", r"\bFIPS\s+(?:PUB(?:LICATION)?\s+)?(?P<num>\d{2,3}(?:-\d)?)\b", "FIPS {num}"),
    Kind(
        "csf",
        r"\b(?:Framework\s+for\s+Improving\s+Critical\s+Infrastructure\s+Cybersecurity|Cybersecurity\s+Framework)"
        r"\s*,?\s+(?:Version|v\.?)\s*(?P<num>\d+\.\d+)",
        "CSF {num}",
    ),
    Kind(
        "contract",
        r"\bContract\s+(?:No\.?|Number)\s*:?\s*(?P<num>[A-Z0-9][A-Z0-9./-]{2,})",
        "Contract No. {num}",
    ),
)
_COMPILED = [(k, re.compile(k.pattern, re.IGNORECASE)) for k in KINDS]

#: Cover-page phrases that set the status (the first match wins; default "final").
STATUS_PATTERNS: tuple[tuple[str, str], ...] = (
    ("withdrawn", r"\b(?:withdrawn|archived\s+publication|has\s+been\s+superseded)\b"),
    ("draft", r"\b(?:draft|public\s+comment\s+period)\b"),
)


def _vol(v: str | None) -> str | None:
    if not v:
        return None
    return str(_ROMAN.get(v.upper(), v)) if not v.isdigit() else v


def _format(kind: Kind, m: re.Match) -> tuple[str, str, str | None]:
    """(canonical id, base id without revision, revision)."""
    num = m.group("num").upper()
    base = kind.template.format(num=num)
    gd = m.groupdict()
    vol = _vol(gd.get("vol") or gd.get("vol2"))
    if vol:
        base += f" Vol. {vol}"
    rev = gd.get("rev")
    return (f"{base} Rev. {rev}" if rev else base), base, rev


def find_identifiers(text: str) -> list[tuple[str, str, str | None, int]]:
    """Every publication identifier in ``text``: (canonical, base, revision, offset), in text order."""
    text = " ".join(normalize(text).split())
    out = []
    for kind, rx in _COMPILED:
        for m in rx.finditer(text):
            full, base, rev = _format(kind, m)
            out.append((full, base, rev, m.start()))
    return sorted(out, key=lambda t: t[3])


def canonical(name: str) -> tuple[str, str | None] | None:
    """(base id, revision) of a reference as written, or None when it names no known kind."""
    found = find_identifiers(name)
    if not found:
        return None
    _, base, rev, _ = found[0]
    return base, rev


#: A document names itself near the top of its cover or title page; later mentions on those
#: pages are citations of other publications ("... maps to SP 800-53 Rev. 4").
HEAD_WORDS = 100


def _first_pages_text(tables, pages: int = 2) -> str:
    lines = tables.line_df
    heads = []
    for p in range(1, pages + 1):
        words = " ".join(lines.loc[lines["page"] == p, "text"].astype(str).tolist()).split()
        heads.append(" ".join(words[:HEAD_WORDS]))
    return " ".join(heads)


def content_sha(tables) -> str:
    """Hash of the document's text (whitespace-insensitive): same content in different bytes."""
    text = " ".join(" ".join(tables.line_df["text"].astype(str).tolist()).split())
    return hashlib.sha256(normalize(text).encode()).hexdigest()[:16]


def identify(tables, metadata_title: str | None = None) -> dict:
    """Title, publication id, revision and status of a parsed document."""
    cover = _first_pages_text(tables, 1)
    text = _first_pages_text(tables, 2)
    found = find_identifiers(text) or find_identifiers(metadata_title or "")
    pub_id = base = rev = None
    if found:
        pub_id, base, rev, _ = found[0]
    status = "final"
    head = " ".join(cover.split()[:80]) + " " + (metadata_title or "")
    for name, rx in STATUS_PATTERNS:
        if re.search(rx, head, re.IGNORECASE):
            status = name
            break
    title = (metadata_title or "").strip()
    if not title or title.lower().startswith(("microsoft word", "untitled")):
        toc = tables.toc_df
        title = str(toc["title"].iloc[0]) if len(toc) else (cover.split("  ")[0][:120] or "")
    return {
        "title": title[:300],
        "publication_id": pub_id,
        "publication_base": base,
        "revision": rev,
        "status": status,
    }
