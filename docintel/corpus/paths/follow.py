"""The follow path: the best evidence, the identifiers it names, one hop to where else they appear.

1. search, exactly as the search path does (:func:`docintel.corpus.paths.search.run`);
2. read the identifiers out of that evidence (not out of the question): the same normalizer
   that recorded the ``mentions`` table at ingestion runs on the evidence text;
3. look them up: the blocks that mention them (``mentions``) and the documents that *are* them
   (``identities``), both read through ``store.rows`` for the asking user, so a block the user
   may not read is never a target, never counted and never named;
4. keep the linked blocks that fit the question (its terms, weighted by how rare they are among
   the candidates), a few per document, each labelled with the identifier that led to it;
5. state the links in the answer ("PM-15 also appears in csf1.1.pdf p33") and report revision
   mismatches ("cites Rev. 4; the corpus holds Rev. 3").

One hop only: the linked blocks' own identifiers are not followed.
"""

from __future__ import annotations

import math
from collections import defaultdict

import pandas as pd

from docintel.corpus.paths import search
from docintel.corpus.paths.idents import WINDOW, evidence_mentions, rank_idents
from docintel.corpus.paths.idents import terms as _terms
from docintel.corpus.paths.quotes import capped, link_quote

#: The best index blocks that start the hop: those within this share of the best score, at most
#: START_BLOCKS of them, plus the single-document loop's first evidence item.
START_SHARE = 0.8
START_BLOCKS = 5
#: Blocks either side of a starting block read with it (a table row is cut into small blocks).
START_REACH = 2
#: Index hits inside a cited document among which its best block is chosen.
TARGET_HITS = 5
#: Linked blocks kept per (identifier, document) and in all.
PER_DOCUMENT = 3
MAX_LINKED = 12
#: The links' quotes in one answer: each at most QUOTE_CHARS, together at most QUOTES_CHARS
#: (the best-ranked links first; the rest stay named and cited, unquoted).
QUOTE_CHARS = 300
QUOTES_CHARS = 900
#: Characters either side of a linked mention its quote is read from, before the cut to
#: QUOTE_CHARS keeps the parts the question asks about (a table row runs past WINDOW).
QUOTE_REACH = 2 * WINDOW


def _question_scores(question: str, blocks: pd.DataFrame) -> dict[str, float]:
    """Each candidate block's question terms (its own text and section), weighted by rarity among the candidates."""
    qt = _terms(question)
    if blocks.empty or not qt:
        return {}
    bags = {
        b: _terms(f"{s} {t}") & qt
        for b, s, t in zip(blocks["block_id"], blocks["section_title"], blocks["text"], strict=True)
    }
    df: dict[str, int] = defaultdict(int)
    for bag in bags.values():
        for t in bag:
            df[t] += 1
    n = len(bags)
    return {b: sum(math.log(1 + n / df[t]) for t in bag) for b, bag in bags.items()}


def _identifiers_named(store, user, block_ids: list[str]) -> dict[str, int]:
    """How many distinct identifiers each block names, read through the access-checked
    ``mentions`` rows."""
    if not block_ids:
        return {}
    rows = store.rows("mentions", user, "t.block_id = ANY(:ids)", {"ids": block_ids})
    return {b: max(1, int(n)) for b, n in rows.groupby("block_id")["ident_id"].nunique().items()}


def _overlaps(block, start: list[dict]) -> bool:
    return any(
        e.get("doc_id") == block["doc_id"]
        and int(e.get("page", -1)) == int(block["page"])
        and int(e.get("line_start", 0)) <= int(block["line_end"])
        and int(block["line_start"]) <= int(e.get("line_end", 0))
        for e in start
    )


def _edition(cited_full: str, held: pd.DataFrame) -> str:
    """ "cites Rev. 4; the corpus holds Rev. 3" when the cited qualifiers differ from every held copy."""
    from docintel.corpus.links import _qual_text, _quals
    from docintel.identifiers import normalize

    q_cited = _quals(normalize(cited_full))
    if not q_cited or held.empty:
        return ""
    helds = [_quals(normalize(f)) for f in held["ident_full"]]
    if any(all(h.get(k) == v for k, v in q_cited.items()) for h in helds):
        return ""
    return f"cites {_qual_text(q_cited)}; the corpus holds " + ", ".join(
        _qual_text(h) or f"{f} (no revision number)" for h, f in zip(helds, held["ident_full"], strict=True)
    )


def _cited_copies(held: pd.DataFrame, mentions: list) -> set[tuple[str, str]]:
    """(ident, doc_id) of the held copies the evidence cites: where it names a volume, part or
    revision ("SP 800-60 Revision 1, Volume 1") and a held copy has them, only those copies
    are the cited document ("SP 800-60 is sp800-60v1r1.pdf"; Volume 2 is another document that
    shares its number), also where the same text names it bare too ("SP 800-60" in a later
    footnote is the short form of the full reference); where the evidence names none or no
    held copy has them, every copy (the editions note says which one the corpus holds)."""
    from docintel.corpus.links import _quals
    from docintel.identifiers import normalize

    cited: dict[str, list[dict]] = defaultdict(list)
    for m, _ in mentions:
        cited[m.ident.canonical].append(_quals(normalize(m.ident.full)))
    out = set()
    for ident, rows in held.groupby("ident_id"):
        copies = [(d, _quals(normalize(f))) for d, f in zip(rows["doc_id"], rows["ident_full"], strict=True)]
        wanted = [q for q in cited.get(ident, []) if q]
        match = {d for d, h in copies if any(all(h.get(k) == v for k, v in q.items()) for q in wanted)}
        if not match:  # cited bare only ("SP 800-60"), or an edition the corpus lacks: every copy
            match = {d for d, _ in copies}
        out |= {(ident, d) for d in match}
    return out


def _evidence(block, doc, ident: str, label: str) -> dict:
    return {
        "doc_id": block["doc_id"],
        "document": search.doc_info(doc),
        "page": int(block["page"]),
        "line_start": int(block["line_start"]),
        "line_end": int(block["line_end"]),
        "text": block["text"],
        "retrieved_via": "link",
        "via": ident,
        "note": label,
    }


def _with_neighbours(store, user, chosen: pd.DataFrame, reach: int = 1) -> dict:
    """Each chosen block joined with the blocks just before and after it on its page.

    A table row is often cut into several small blocks (the id in one, its outcome text and
    its references in the next), so a mention's block alone can miss what it says.
    """
    out = {}
    for doc_id, grp in chosen.groupby("doc_id"):
        pages = sorted({int(p) for p in grp["page"]})
        page_blocks = store.rows(
            "blocks", user, "t.doc_id = :d AND t.page = ANY(:pages)", {"d": doc_id, "pages": pages}
        )
        for bid, row in grp.iterrows():
            same = (
                page_blocks[page_blocks["page"] == row["page"]]
                .sort_values("line_start")
                .reset_index(drop=True)
            )
            pos = same.index[same["block_id"] == bid]
            if not len(pos):
                continue
            part = same.iloc[max(0, pos[0] - reach) : pos[0] + reach + 1]
            merged = row.copy()
            merged["line_start"], merged["line_end"] = (
                int(part["line_start"].min()),
                int(part["line_end"].max()),
            )
            merged["text"] = "\n".join(part["text"])
            out[bid] = merged
    return out


def _start_items(corpus, user, out: dict) -> list[dict]:
    """The best evidence: the top index blocks (within START_SHARE of the best) and the loop's first item."""
    hits = next((e["hits"] for e in out["trace"].get("events", []) if e.get("event") == "blocks"), [])
    top = hits[0]["score"] if hits else 0.0
    ids = [h["block_id"] for h in hits if h["score"] >= START_SHARE * top][:START_BLOCKS]
    found = corpus.store.blocks(user, ids).set_index("block_id", drop=False) if ids else pd.DataFrame()
    ids = [b for b in ids if b in found.index]
    context = _with_neighbours(corpus.store, user, found.loc[ids], START_REACH) if ids else {}
    items = []
    for b in ids:  # a table row cut into blocks: the id may sit in the block next to its text
        row = context.get(b, found.loc[b])
        item = {k: row[k] for k in ("doc_id", "page", "line_start", "line_end", "text", "block_id")}
        if not any(_overlaps(pd.Series(item), [i]) for i in items):
            items.append(item)
    for e in [e for e in out["evidence"] if e.get("doc_id") == out["doc_id"]][:1]:
        if not any(_overlaps(pd.Series(i), [e]) for i in items):
            items.append(e)
    return items


def follow_links(corpus, question: str, user, out: dict, docs: pd.DataFrame) -> dict:
    """The links from ``out``'s best evidence for ``user``: start items, links, linked evidence, editions."""
    store = corpus.store
    by_id = docs.set_index("doc_id", drop=False)
    readable = set(docs["doc_id"])  # current documents the user may read (superseded ones left out)
    items = [i for i in _start_items(corpus, user, out) if i["doc_id"] in readable]
    result = {"start": [f"{by_id.loc[i['doc_id'], 'file']} p{int(i['page'])}" for i in items]}
    result.update(links=[], evidence=[], editions=[], start_items=items, followed=[])
    homes = store.rows(
        "identities", user, "t.doc_id = ANY(:ids)", {"ids": sorted({i["doc_id"] for i in items})}
    )
    home = {d: g["ident_id"].tolist() for d, g in homes.groupby("doc_id")}
    by_item = [(i, evidence_mentions([i], home.get(i["doc_id"], []))) for i in items]
    mentions = [mw for _, ms in by_item for mw in ms]
    keys = list(dict.fromkeys(m.ident.canonical for m, _ in mentions))
    result["start_items"] = []  # only the starting blocks that name a followed id are added
    if not keys:
        return result
    ments = store.rows("mentions", user, "t.ident_id = ANY(:ids)", {"ids": keys})
    ments = ments[ments["doc_id"].isin(readable) & ments["block_id"].notna()]
    held = store.rows("identities", user, "t.ident_id = ANY(:ids)", {"ids": keys})
    held = held[held["doc_id"].isin(readable)]
    citing = defaultdict(set)
    for c, d in [
        *zip(ments["ident_id"], ments["doc_id"], strict=True),
        *zip(held["ident_id"], held["doc_id"], strict=True),
    ]:
        citing[c].add(d)
    start_docs = {i["doc_id"] for i in items}
    # an id that only the starting documents name leads nowhere
    reach = {
        c: len(ds) for c, ds in citing.items() if ds - start_docs or len(ments[ments["ident_id"] == c]) > 1
    }
    ranked = rank_idents(question, mentions, reach, len(readable))
    followed = [c for c, _, _, _ in ranked]
    result["followed"] = followed
    result["start_items"] = [i for i, ms in by_item if any(m.ident.canonical in followed for m, _ in ms)]
    result["start"] = [f"{by_id.loc[i['doc_id'], 'file']} p{int(i['page'])}" for i in result["start_items"]]
    if not followed:
        return result
    cited = {m.ident.full: m for m, _ in mentions if m.ident.canonical in set(held["ident_id"])}
    for full, m in cited.items():  # every cited publication the corpus holds, followed or not
        other = held[(held["ident_id"] == m.ident.canonical) & ~held["doc_id"].isin(start_docs)]
        note = _edition(full, other)
        if note:
            result["editions"].append(
                {
                    "ident": m.ident.canonical,
                    "cited": full,
                    "surface": m.surface,
                    "note": note,
                    "doc_ids": sorted(set(other["doc_id"])),
                }  # the held copies the note describes
            )
    windows = {c: " ".join(w for m, w in mentions if m.ident.canonical == c) for c in followed}
    # a document naming itself (cover, headings) is no link: the held document's best block is,
    # found with the question and the words around the citation
    held = held[held["ident_id"].isin(followed)]
    own = set(zip(held["ident_id"], held["doc_id"], strict=True))
    own_targets = _cited_copies(held[~held["doc_id"].isin(start_docs)], mentions)
    ments = ments[ments["ident_id"].isin(followed)]
    is_own = [(i, d) in own for i, d in zip(ments["ident_id"], ments["doc_id"], strict=True)]
    naming = set(ments.loc[is_own, "block_id"].dropna())  # blocks where a document names itself
    ments = ments[[not x for x in is_own]]
    targets: list[tuple[str, str]] = []  # (ident, block_id)
    for canonical, doc_id in sorted(own_targets):
        query = f"{question} {windows[canonical]}"
        hits = corpus.index.search(store, query, [doc_id], k=TARGET_HITS)
        if hits:  # the index ranks a short cover block high on its title words; its text decides
            found = store.blocks(user, [h[0] for h in hits]).set_index("block_id")
            qt = _terms(query)
            ranked = [h[0] for h in hits if h[0] in found.index]
            # its cover or a running head names it and shares the query's title words; the
            # content is elsewhere, so those blocks are the target only when nothing else is
            ranked = [b for b in ranked if b not in naming] or ranked
            if ranked:
                best = max(ranked, key=lambda b: (len(_terms(found.loc[b, "text"]) & qt), -ranked.index(b)))
                targets.append((canonical, best))
    ids = list(dict.fromkeys([*ments["block_id"].tolist(), *(b for _, b in targets)]))
    blocks = store.blocks(user, ids)  # the store re-checks access on every block
    if blocks.empty:
        return result
    blocks = blocks[~blocks.apply(lambda b: _overlaps(b, items), axis=1)].set_index("block_id", drop=False)
    scores = _question_scores(question, blocks)
    order = {c: i for i, c in enumerate(followed)}
    via: dict[str, str] = {}  # block -> the best-ranked followed id that leads to it
    for canonical, block_id in [*zip(ments["ident_id"], ments["block_id"], strict=True), *targets]:
        if block_id in blocks.index and (block_id not in via or order[canonical] < order[via[block_id]]):
            via[block_id] = canonical
    target_ids = {b for _, b in targets}
    target_of = {b: c for c, b in targets}
    per: dict[tuple[str, str], list[str]] = defaultdict(list)
    for block_id, ident in via.items():
        per[(ident, blocks.loc[block_id, "doc_id"])].append(block_id)
    shared = _identifiers_named(store, user, list(blocks.index))

    def fit(b: str) -> float:
        """A block's question fit shared by the identifiers it names: a sentence citing the
        identifier (what it is cited for) outranks a reference list or a row naming it among
        many. One key inside a document and across documents, so the cut agrees with the pick."""
        return scores.get(b, 0.0) / shared.get(b, 1)

    chosen: list[str] = []
    for members in per.values():
        members.sort(key=lambda b: (-fit(b), int(blocks.loc[b, "page"])))
        chosen += members[:PER_DOCUMENT]
    chosen.sort(key=lambda b: (b not in target_ids, -fit(b)))
    kept = sorted(chosen[:MAX_LINKED], key=lambda b: (order[via[b]], b))
    context = _with_neighbours(store, user, blocks.loc[kept]) if kept else {}
    quoted: dict[tuple[str, str], str] = {}  # (ident, document) -> its best-fitting kept block
    for b in kept:
        key = (via[b], blocks.loc[b, "doc_id"])
        if key not in quoted or fit(b) > fit(quoted[key]):
            quoted[key] = b
    qt = _terms(question)
    page_of = {b: (via[b], blocks.loc[b, "doc_id"], int(blocks.loc[b, "page"])) for b in via}
    by_line, joined = sorted(via, key=lambda b: int(blocks.loc[b, "line_start"])), set(kept)
    for block_id in kept:
        block = context.get(block_id, blocks.loc[block_id])
        doc = by_id.loc[block["doc_id"]]
        ident = via[block_id]
        verb = "is" if target_of.get(block_id) == ident else "also appears in"
        label = f"{ident} {verb} {doc['file']} p{int(block['page'])}"
        # the page's other blocks naming the identifier come with it: one citation, e.g. the
        # body's reference list and the footnote that says what the report is cited for
        more = [
            blocks.loc[b]
            for b in by_line
            if b not in joined and page_of[b] == page_of[block_id] and not _overlaps(blocks.loc[b], [block])
        ]
        joined |= {b["block_id"] for b in more}
        # what the document says there, once per document: its best-fitting block's row or
        # sentence, each block quoted on its own (a quote never splices two blocks together)
        cited = sorted([block, *more], key=lambda b: int(b["line_start"]))
        # the cited document itself ("SP 800-150 is sp800-150.pdf p14"): its block's text, cut to
        # what the question asks (run's ``capped``); its own name there is a running head
        said = (
            (" ".join(block["text"].split()) if verb == "is" else link_quote([b["text"] for b in cited], ident, qt, reach=QUOTE_REACH))
            if quoted[(ident, block["doc_id"])] == block_id
            else ""
        )  # fmt: skip
        link = {
            "ident": ident,
            "doc_id": block["doc_id"],
            "document": doc["file"],
            "page": int(block["page"]),
            "text": label,
        }
        result["links"].append({**link, "quote": said})
        result["evidence"] += [_evidence(b, doc, ident, label) for b in cited]
    return result


def run(corpus, question: str, user: str | None, *, backend=None, top_k: int | None = None) -> dict:
    """Answer ``question`` for ``user``: the search path's answer plus one hop of identifier links."""
    # the start document's part under the single-document budget: the links' quotes are the
    # rest of this answer, and what the linked documents say is what the question asks
    out = search.run(corpus, question, user, backend=backend, top_k=top_k, grown=False)
    out["route"] = "follow"
    out.setdefault("trace", {})["route"] = "follow"
    if out.get("doc_id") is None:
        out["links"] = []
        return out
    docs = corpus.store.readable_documents(user)
    found = follow_links(corpus, question, user, out, docs)
    by_id = docs.set_index("doc_id", drop=False)
    for item in found["start_items"]:  # the best blocks that started the hop are evidence too
        if not any(_overlaps(pd.Series(item), [e]) for e in out["evidence"]):
            label = f"best search block of {by_id.loc[item['doc_id'], 'file']}"
            out["evidence"].append(
                {**_evidence(item, by_id.loc[item["doc_id"]], "", label), "retrieved_via": "search"}
            )
    out["evidence"].extend(found["evidence"])
    out["links_followed"] = found["followed"]
    for link, q in zip(found["links"], capped([x["quote"] for x in found["links"]], each=QUOTE_CHARS,
                                              total=QUOTES_CHARS, question_terms=_terms(question)), strict=True):  # fmt: skip
        link["quote"] = q
    out["links"] = found["links"]
    out["editions"] = found["editions"]
    editions = [f"{e['surface']} {e['note']}" for e in found["editions"]]
    facts = [x["text"] for x in found["links"]] + editions
    if facts:
        out["known_facts"] = f"links followed from {', '.join(found['start'])}: " + "; ".join(facts)
        said = [x["text"] + (f' ("{x["quote"]}")' if x.get("quote") else "") for x in found["links"]]
        out["answer"] = out["answer"].rstrip() + " Linked: " + "; ".join(said + editions) + "."
    out["trace"].setdefault("events", []).append(
        {"event": "links", "start": found["start"], "linked": [x["text"] for x in found["links"]]}
    )
    return out
