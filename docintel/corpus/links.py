"""Identifier mentions per document, the identifiers a document *is*, and the link graph.

``mentions_for(tables)`` reads every identifier a parsed document mentions (one row per
mention, with page and line); ``self_identity(tables)`` reads the publication a document is
(cover, DOI line, running headers, PDF metadata); ``link_graph(mentions, identities)`` joins
the two: citing document -> cited document through a canonical id, with the edition check
("cites Rev. 4; the corpus holds Rev. 3"). All three are pure over their inputs, ready for
the corpus store to persist.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Mapping
from pathlib import Path

import pandas as pd

from docintel.corpus.store import TABLES
from docintel.identifiers import (
    Ident,
    clean,
    container_ids,
    find_identifiers,
    names_series,
    normalize,
    pub_full,
)
from docintel.schema.document import DocTables

#: Line roles that repeat on every page (running headers, footers, page numbers): a mention
#: there is the document naming itself, read by :func:`self_identity`, not a citation.
FURNITURE_ROLES = frozenset({"header", "footer", "page_number"})

#: A mention as :func:`mentions_for` reads it: the store's ``mentions`` table (one declaration,
#: ``corpus/store.py``) without the ``mention_id`` and ``block_id`` ingest adds.
MENTION_COLUMNS = [c for c in TABLES["mentions"].columns if c not in ("mention_id", "block_id")]
IDENTITY_COLUMNS = list(TABLES["identities"].columns)
LINK_COLUMNS = [
    "citing_doc",
    "cited_doc",
    "ident_id",
    "ident_full",
    "held_as",
    "n_mentions",
    "pages",
    "edition",
    "note",
]

#: Kinds that name a whole publication: what a document can *be*.
PUBLICATION_KINDS = ("sp", "fips", "nistir", "framework", "rfc", "cfr")


def _page_texts(lines: pd.DataFrame) -> list[tuple[int, str, list[tuple[int, int, str]]]]:
    """Per page: the page's text (lines joined by newlines) and (offset, line, role) per line."""
    out = []
    for page, grp in lines.sort_values(["page", "line"]).groupby("page", sort=True):
        parts, offsets, pos = [], [], 0
        for line, text, role in zip(grp["line"], grp["text"], grp["role"], strict=True):
            t = clean(str(text or "")).strip()
            offsets.append((pos, int(line), str(role or "")))
            parts.append(t)
            pos += len(t) + 1
        out.append((int(page), "\n".join(parts), offsets))
    return out


def _line_at(offsets: list[tuple[int, int, str]], pos: int) -> tuple[int, str]:
    line, role = offsets[0][1], offsets[0][2]
    for start, ln, rl in offsets:
        if start > pos:
            break
        line, role = ln, rl
    return line, role


def mentions_for(tables: DocTables, *, home: list[Ident] | None = None) -> pd.DataFrame:
    """One row per identifier mention in the document's text (furniture lines skipped).

    Lines of a page are read as one text, so an id split over a line break ("SP 800-" /
    "53", "PM-" / "11") is one mention, located at the line it starts on. ``source`` is the
    role of that line (body, table, heading, footnote, toc_entry, ...). ``home``: the
    document's own identity (default: :func:`self_identity`), so that ids bound to their
    publication (SP 800-171 requirement ids) count inside it.
    """
    lines = tables.line_df
    if lines.empty:
        return pd.DataFrame(columns=MENTION_COLUMNS)
    if home is None:
        home = self_identity(tables)
    home_ids = [i.canonical for i in home]
    body = lines[~lines["role"].isin(FURNITURE_ROLES)]
    pages = _page_texts(body)
    # a bare "800-53" is a publication in a document that names the series elsewhere
    named = any(names_series(text) for _, text, _ in pages)
    rows = []
    for page, text, offsets in pages:
        for m in find_identifiers(text, home=home_ids, series_named=named):
            line, role = _line_at(offsets, m.start)
            rows.append(
                (
                    tables.doc_id,
                    page,
                    line,
                    m.ident.canonical,
                    m.ident.full,
                    m.surface,
                    m.ident.kind,
                    role,
                    m.ident.revision,
                )
            )
    return pd.DataFrame(rows, columns=MENTION_COLUMNS)


_DOI_RE = re.compile(r"10\.6028/(NIST\.[A-Za-z]+\.[0-9A-Za-z.\-]+?)(?=[\s,;)]|\.?$)", re.M)
_DRAFT_RE = re.compile(r"\b(?:DRAFT|Draft)\b")
_CFR_COVER = re.compile(r"^Title (?P<title>\d{1,2})\b[^\n]*\n(?:[^\n]*\n){0,4}PART (?P<part>\d{1,4})\b", re.M)
_COVER_REVISION = re.compile(r"^(?i:rev(?:ision)?)\.?\s?(\d{1,2})$", re.M)


def _pdf_metadata(tables: DocTables) -> str:
    """Title and subject from the PDF's metadata, when the source file is still there."""
    path = tables.path or (tables.manifest or {}).get("source_path")
    if not path or not Path(path).is_file():
        return ""
    try:
        import pymupdf

        with pymupdf.open(path) as doc:
            meta = doc.metadata or {}
    except Exception:  # metadata is a hint; a file we cannot open gives none
        return ""
    return " \n ".join(str(meta.get(k) or "") for k in ("title", "subject"))


def self_identity(tables: DocTables, *, cover_pages: int = 4) -> list[Ident]:
    """The publication(s) the document is: "NIST Special Publication 800-53 Revision 3" -> SP 800-53 Rev. 3.

    Evidence, strongest first: the DOI line (10.6028/NIST.SP.800-53r4) on the first pages;
    a cover line that is mostly a publication id ("FIPS PUB 199", "NISTIR 8183"), by font size;
    running headers and footers naming it on many pages; the PDF metadata title. A document
    that only cites publications (a crosswalk) has no identity: ``[]``. The qualifiers
    (revision, volume) come from the strongest mention that carries them.
    """
    lines = tables.line_df
    if lines.empty:
        return []
    score: dict[str, float] = defaultdict(float)
    best: dict[str, tuple[float, Ident]] = {}
    why: dict[str, str] = {}

    def vote(ident: Ident, weight: float, evidence: str) -> None:
        if ident.kind not in PUBLICATION_KINDS:
            return
        score[ident.canonical] += weight
        qual = weight + (5.0 if _quals(ident) else 0.0)  # the mention that says which edition
        if ident.canonical not in best or qual > best[ident.canonical][0]:
            best[ident.canonical] = (qual, ident)
            why[ident.canonical] = evidence

    first = lines[lines["page"] <= cover_pages]
    first_text = "\n".join(clean(str(t or "")) for t in first["text"])
    for doi in _DOI_RE.findall(first_text):
        ident = normalize(doi)
        if ident is not None:
            vote(ident, 100.0, f"DOI {doi}")
    for page, text, offsets in _page_texts(first):
        for m in find_identifiers(text):
            if m.ident.kind not in ("sp", "fips", "nistir", "rfc"):
                continue  # the Framework *by name* is cited on covers of documents that are not it
            line, role = _line_at(offsets, m.start)
            row = first[(first["page"] == page) & (first["line"] == line)]
            line_text = clean(str(row["text"].iloc[0])) if len(row) else m.surface
            share = len(re.sub(r"\W", "", m.surface)) / max(1, len(re.sub(r"\W", "", line_text)))
            opens = page == 1 and line_text.strip().startswith(m.surface.split()[0])
            named = role in ("title", "heading") or (page <= 2 and role != "table" and share >= 0.5)
            if not (named or opens):
                continue  # a citation in a sentence or a table cell, not the document's name
            size = float(row["size"].iloc[0]) if len(row) and pd.notna(row["size"].iloc[0]) else 10.0
            vote(m.ident, size / 10.0 * (2.0 if page == 1 else 1.0), f"cover p{page}: {m.surface}")
    furniture = lines[lines["role"].isin(FURNITURE_ROLES)]
    n_pages = max(1, int(lines["page"].max()))
    running: dict[Ident, int] = defaultdict(int)
    for _page, text, _ in _page_texts(furniture):
        for ident in {m.ident for m in find_identifiers(text) if m.ident.kind != "framework"}:
            running[ident] += 1
    for ident, n in running.items():
        if n >= max(3, n_pages / 2):  # a running header names the document on most pages
            vote(ident, 8.0 * n / n_pages, "running header/footer")
    cfr = _CFR_COVER.search("\n".join(clean(str(t or "")).strip() for t in lines[lines["page"] == 1]["text"]))
    if cfr:  # an eCFR print: "Title 45 -Public Welfare" ... "PART 164-SECURITY AND PRIVACY"
        ident = normalize(f"{cfr.group('title')} CFR Part {cfr.group('part')}")
        if ident is not None:
            vote(ident, 3.0, f"cover: Title {cfr.group('title')}, Part {cfr.group('part')}")
    for m in find_identifiers(_pdf_metadata(tables)):
        vote(m.ident, 1.0, f"PDF metadata: {m.surface}")  # metadata is often stale or copied
    if not score:
        return []
    top = max(score.values())
    if top < 1.0:
        return []  # a stray header mention on a few pages names a cited document, not this one
    page1 = "\n".join(clean(str(t or "")).strip() for t in lines[lines["page"] == 1]["text"])
    draft = bool(_DRAFT_RE.search(page1))
    out = []
    for canonical in sorted(score, key=lambda c: -score[c]):
        if score[canonical] < top:
            break
        ident = best[canonical][1]
        attrs = tuple(a for a in ident.attrs if a[0] != "footnote")
        rev = _COVER_REVISION.search(page1)
        if ident.attr("revision") is None and rev and ident.kind != "framework":
            # "NIST Special Publication 800-53" / title / "Revision 3": the revision on a line of its own
            attrs += (("revision", str(int(rev.group(1)))),)
            ident = Ident(ident.kind, ident.canonical, pub_full(ident.canonical, dict(attrs)), attrs)
        if draft:
            attrs += (("status", "draft"),)
        out.append(Ident(ident.kind, ident.canonical, ident.full, attrs + (("evidence", why[canonical]),)))
    return out


def identity_rows(doc_id: str, idents: list[Ident]) -> pd.DataFrame:
    """The identifier -> document edges of one document, as rows (the store persists these)."""
    rows = [
        (
            doc_id,
            i.canonical,
            i.full,
            i.kind,
            i.attr("revision"),
            i.attr("volume"),
            i.attr("status") or "final",
            i.attr("evidence"),
        )
        for i in idents
    ]
    return pd.DataFrame(rows, columns=IDENTITY_COLUMNS)


def _quals(ident: Ident | None) -> dict[str, str]:
    if ident is None:
        return {}
    return {k: v for k, v in ident.attrs if k in ("revision", "volume", "part")}


def _qual_text(q: dict[str, str]) -> str:
    bits = [f"Vol. {q['volume']}" if "volume" in q else "", f"Part {q['part']}" if "part" in q else ""]
    bits.append(f"Rev. {q['revision']}" if "revision" in q else "")
    return " ".join(b for b in bits if b)


def link_graph(mentions: pd.DataFrame, identities: pd.DataFrame | Mapping[str, list[Ident]]) -> pd.DataFrame:
    """Citing document -> cited document through a canonical id, one row per distinct full form cited.

    ``identities``: :func:`identity_rows` rows (or ``{doc_id: [Ident, ...]}``). A document's
    mentions of its own identity are not links. ``edition`` compares the qualifiers the
    citation carries with the ones the cited document holds: ``match``, ``mismatch`` (with a
    ``note`` such as "cites Rev. 4; the corpus holds Rev. 3") or ``unqualified`` (the citation
    names no revision or volume, so any edition fits).
    """
    if isinstance(identities, Mapping):
        identities = pd.concat(
            [identity_rows(d, ids) for d, ids in identities.items()]
            or [pd.DataFrame(columns=IDENTITY_COLUMNS)]
        )
    if mentions.empty or identities.empty:
        return pd.DataFrame(columns=LINK_COLUMNS)
    held: dict[str, list[tuple[str, str]]] = defaultdict(list)  # ident_id -> [(doc, full)]
    for doc, ident_id, full in zip(
        identities["doc_id"], identities["ident_id"], identities["ident_full"], strict=True
    ):
        held[ident_id].append((doc, full))
    rows = []
    # a mention links to the document that is its id, or that contains it (45 CFR 164.308 -> Part 164)
    key_of = {}
    for ident_id in mentions["ident_id"].unique():
        key_of[ident_id] = next((k for k in [ident_id, *container_ids(ident_id)] if k in held), None)
    cited = mentions[mentions["ident_id"].map(key_of).notna()]
    for (citing, ident_id, full), grp in cited.groupby(["doc_id", "ident_id", "ident_full"], sort=True):
        q_cited = _quals(normalize(full))
        for cited_doc, held_full in held[key_of[ident_id]]:
            if cited_doc == citing:
                continue
            q_held = _quals(normalize(held_full))
            if not q_cited:
                edition, note = "unqualified", ""
            elif all(q_held.get(k) == v for k, v in q_cited.items()):
                edition, note = "match", ""
            else:
                edition = "mismatch"
                note = f"cites {_qual_text(q_cited)}; the corpus holds {_qual_text(q_held) or held_full + ' (no revision number)'}"
            pages = sorted({int(p) for p in grp["page"]})
            rows.append((citing, cited_doc, ident_id, full, held_full, len(grp), pages, edition, note))
    return pd.DataFrame(rows, columns=LINK_COLUMNS)


def _block_of(blocks: pd.DataFrame) -> Callable[[int, int], str | None]:
    """(page, line) -> the block_id of the block holding that line (None: a line no block keeps)."""
    spans: dict[int, list[tuple[int, int, str]]] = defaultdict(list)
    if blocks is not None and not blocks.empty:
        for bid, page, a, b in zip(
            blocks["block_id"], blocks["page"], blocks["line_start"], blocks["line_end"], strict=True
        ):
            spans[int(page)].append((int(a), int(b), str(bid)))

    def find(page: int, line: int) -> str | None:
        return next((bid for a, b, bid in spans.get(int(page), ()) if a <= int(line) <= b), None)

    return find


def mention_table(tables: DocTables, blocks: pd.DataFrame, doc: dict) -> pd.DataFrame:
    """Deriver of the ``mentions`` corpus table: :func:`mentions_for` plus ``mention_id`` and
    the ``block_id`` holding each mention's line (None for lines no block keeps: contents
    entries, figure labels)."""
    rows = mentions_for(tables)
    if rows.empty:
        return rows
    find = _block_of(blocks)
    doc_id = doc["doc_id"]
    rows = rows.copy()
    rows["doc_id"] = doc_id
    rows["block_id"] = [find(p, ln) for p, ln in zip(rows["page"], rows["line"], strict=True)]
    seq = rows.groupby(["page", "line"]).cumcount()
    rows["mention_id"] = [
        f"{doc_id}:{int(p)}:{int(ln)}:{int(k)}"
        for p, ln, k in zip(rows["page"], rows["line"], seq, strict=True)
    ]
    return rows


def identity_table(tables: DocTables, blocks: pd.DataFrame, doc: dict) -> pd.DataFrame:
    """Deriver of the ``identities`` corpus table: what :func:`self_identity` reads the document to be."""
    return identity_rows(doc["doc_id"], self_identity(tables))


def where_mentioned(store, text: str, user: str | None) -> dict:
    """Where the identifier ``text`` (any spelling) is mentioned, grouped by document, for ``user``.

    Only the current documents ``user`` may read are searched, counted and named (``store.rows``
    applies the access predicate on both stores). Returns ``{"ident", "full", "kind", "held_by",
    "documents": [{"file", "doc_id", "publication_id", "mentions", "pages", "spellings", "revisions"}]}``.
    """
    from docintel.errors import UsageError

    ident = normalize(text)
    if ident is None:
        raise UsageError(f"{text!r} is not an identifier this tool reads (see docs/contracts.md)")
    keys = [ident.canonical]
    docs = store.readable_documents(user).set_index("doc_id", drop=False)
    rows = store.rows("mentions", user, "t.ident_id = ANY(:ids)", {"ids": keys})
    rows = rows[rows["doc_id"].isin(docs.index)]
    held = store.rows("identities", user, "t.ident_id = ANY(:ids)", {"ids": keys})
    held = held[held["doc_id"].isin(docs.index)]
    out = []
    for doc_id, grp in rows.groupby("doc_id", sort=False):
        d = docs.loc[doc_id]
        revs = sorted({str(r) for r in grp["revision"] if isinstance(r, str) and r})
        out.append(
            {
                "file": d["file"],
                "doc_id": doc_id,
                "publication_id": d["publication_id"],
                "mentions": int(len(grp)),
                "pages": sorted({int(p) for p in grp["page"]}),
                "spellings": sorted(set(grp["surface"].astype(str))),
                "revisions": revs,
            }
        )
    out.sort(key=lambda r: (-r["mentions"], r["file"]))
    return {
        "ident": ident.canonical,
        "full": ident.full,
        "kind": ident.kind,
        "held_by": [
            {"file": docs.loc[d, "file"], "doc_id": d, "full": f}
            for d, f in zip(held["doc_id"], held["ident_full"], strict=True)
        ],
        "documents": out,
    }
