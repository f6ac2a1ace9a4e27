"""The agent's tools: each does one thing, takes typed arguments and reads as the user.

A tool never sees the store's other users' rows: every read goes through ``store.rows`` /
``store.blocks`` / the keyword index with the readable document ids, and the SQL tool through
the guarded connection of :mod:`docintel.sql`. A tool returns a :class:`ToolResult`: the rows it
found (whole: the ledger keeps them) and the exploration nodes and edges they add, each with a
stable id (``doc:<doc_id>``, ``block:<block_id>``, ``record:<record_id>``, ``ident:<ident_id>``).
Tables that are still empty (records, mentions, identities before their derivers run) give
empty results, never an error. A target the user may not read is reported exactly as one that
does not exist.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

from docintel.errors import UsageError

#: Rows a tool returns at most (the SQL tool: its row cap).
MAX_ROWS = 20
#: Seconds the SQL tool's query may run.
SQL_TIMEOUT = 5.0
NOT_READABLE = "no such item among the documents you can read"


def doc_node(doc_id: str) -> str:
    return f"doc:{doc_id}"


def block_node(block_id: str) -> str:
    return f"block:{block_id}"


def record_node(record_id: str) -> str:
    return f"record:{record_id}"


def ident_node(ident_id: str) -> str:
    return f"ident:{ident_id}"


@dataclass
class ToolResult:
    """What one tool call found: rows (whole), nodes and edges (src, relation, dst)."""

    rows: list[dict] = field(default_factory=list)
    nodes: list[dict] = field(default_factory=list)
    edges: list[tuple[str, str, str]] = field(default_factory=list)
    note: str = ""

    def add_node(self, node_id: str, kind: str, label: str = "", **extra: Any) -> None:
        self.nodes.append({"id": node_id, "kind": kind, "label": label, **extra})


# -- argument schemas -----------------------------------------------------------------------


class SearchArgs(BaseModel):
    """Keyword search over the text blocks of the documents you can read."""

    query: str = Field(min_length=1, max_length=300, description="keywords to search for")
    k: int = Field(5, ge=1, le=MAX_ROWS, description="how many blocks to return")


class BlockArgs(BaseModel):
    """One text block by its id (``<doc_id>:<page>:<line_start>``), with its full text."""

    block_id: str = Field(min_length=3, max_length=200)


class IdentifierArgs(BaseModel):
    """Which documents are, and which mention, a publication identifier ("SP 800-53")."""

    identifier: str = Field(min_length=2, max_length=100)


class DocArgs(BaseModel):
    """A document by doc_id, file name or publication id."""

    document: str = Field(min_length=2, max_length=200)


class RecordArgs(BaseModel):
    """Typed records (controls, phases, roles ...), optionally of one type and one document."""

    record_type: str | None = Field(None, max_length=60)
    document: str | None = Field(None, max_length=200)
    contains: str | None = Field(None, max_length=100, description="text the record must contain")


class SqlArgs(BaseModel):
    """One read-only SELECT over the corpus tables (the schema is in the instructions)."""

    query: str = Field(min_length=8, max_length=2000)


# -- the tools ------------------------------------------------------------------------------


@dataclass
class ToolContext:
    """The corpus and the user every tool reads as."""

    corpus: Any
    user: str | None
    _docs: Any = None

    @property
    def store(self):
        return self.corpus.store

    def documents(self):
        if self._docs is None:
            self._docs = self.store.readable_documents(self.user)
        return self._docs

    def find_document(self, name: str) -> dict | None:
        """A readable document by doc_id, file, publication id or base (None: not readable)."""
        docs = self.documents()
        want = name.strip().lower()
        for col in ("doc_id", "file", "publication_id", "publication_base"):
            hit = docs[docs[col].astype(str).str.lower() == want]
            if len(hit):
                return hit.iloc[0].to_dict()
        return None


def _block_row(b) -> dict:
    return {
        "block_id": b["block_id"],
        "doc_id": b["doc_id"],
        "page": int(b["page"]),
        "line_start": int(b["line_start"]),
        "line_end": int(b["line_end"]),
        "section_title": b.get("section_title") or "",
        "text": b["text"],
    }


def _add_block(res: ToolResult, ctx: ToolContext, row: dict) -> None:
    docs = ctx.documents().set_index("doc_id")
    file = docs.loc[row["doc_id"], "file"] if row["doc_id"] in docs.index else row["doc_id"]
    row["file"] = file
    res.rows.append(row)
    res.add_node(doc_node(row["doc_id"]), "document", file)
    res.add_node(block_node(row["block_id"]), "block", f"{file} p{row['page']}", page=row["page"])
    res.edges.append((doc_node(row["doc_id"]), "contains", block_node(row["block_id"])))


def search_blocks(ctx: ToolContext, args: SearchArgs) -> ToolResult:
    ids = ctx.documents()["doc_id"].tolist()
    hits = ctx.corpus.index.search(ctx.store, args.query, ids, k=args.k)
    res = ToolResult()
    if not hits:
        res.note = "no block matches"
        return res
    blocks = ctx.store.blocks(ctx.user, [h[0] for h in hits])
    by_id = {b["block_id"]: b for b in blocks.to_dict("records")}
    for block_id, _doc, score in hits:
        if block_id in by_id:  # the store re-checks access
            row = _block_row(by_id[block_id])
            row["score"] = round(float(score), 3)
            _add_block(res, ctx, row)
    return res


def get_block(ctx: ToolContext, args: BlockArgs) -> ToolResult:
    blocks = ctx.store.blocks(ctx.user, [args.block_id])
    res = ToolResult()
    if blocks.empty:
        raise ToolError(NOT_READABLE + f": block {args.block_id}")
    _add_block(res, ctx, _block_row(blocks.iloc[0]))
    return res


def _ident_ids(identifier: str) -> list[str]:
    from docintel.corpus.identifiers import normalize

    ident = normalize(identifier)
    ids = [identifier.strip()]
    if ident is not None:
        ids = [ident.canonical, ident.full, *ids]
    return list(dict.fromkeys(i for i in ids if i))


def lookup_identifier(ctx: ToolContext, args: IdentifierArgs) -> ToolResult:
    ids = _ident_ids(args.identifier)
    res = ToolResult()
    who = ctx.store.rows("identities", ctx.user, "t.ident_id = ANY(:ids)", {"ids": ids})
    for r in who.to_dict("records"):
        res.rows.append({"relation": "is", **r})
        res.add_node(ident_node(r["ident_id"]), "identifier", r.get("ident_full") or r["ident_id"])
        res.add_node(doc_node(r["doc_id"]), "document", r["doc_id"])
        res.edges.append((doc_node(r["doc_id"]), "is", ident_node(r["ident_id"])))
    mentions = ctx.store.rows("mentions", ctx.user, "t.ident_id = ANY(:ids)", {"ids": ids})
    for doc_id, group in mentions.groupby("doc_id", sort=True) if len(mentions) else []:
        first = group.iloc[0]
        res.rows.append(
            {
                "relation": "mentioned_by",
                "doc_id": doc_id,
                "ident_id": first["ident_id"],
                "n_mentions": len(group),
                "blocks": sorted(set(group["block_id"].dropna().astype(str)))[:5],
            }
        )
        res.add_node(ident_node(first["ident_id"]), "identifier", first["ident_id"])
        res.add_node(doc_node(doc_id), "document", doc_id)
        res.edges.append((doc_node(doc_id), "mentions", ident_node(first["ident_id"])))
    if not res.rows:
        res.note = f"no readable document is or mentions {args.identifier!r}"
    return res


def _doc_or_error(ctx: ToolContext, name: str) -> dict:
    doc = ctx.find_document(name)
    if doc is None:
        raise ToolError(NOT_READABLE + f": document {name}")
    return doc


def cites(ctx: ToolContext, args: DocArgs) -> ToolResult:
    """Forward: the identifiers a document mentions, and the readable documents that are them."""
    doc = _doc_or_error(ctx, args.document)
    res = ToolResult()
    res.add_node(doc_node(doc["doc_id"]), "document", doc["file"])
    mentions = ctx.store.rows("mentions", ctx.user, "t.doc_id = :doc", {"doc": doc["doc_id"]})
    if mentions.empty:
        res.note = "the document mentions no identifier (or mentions are not derived yet)"
        return res
    counts = mentions.groupby("ident_id").size().sort_values(ascending=False)
    targets = ctx.store.rows("identities", ctx.user, "t.ident_id = ANY(:ids)", {"ids": list(counts.index)})
    held = targets.groupby("ident_id")["doc_id"].apply(sorted).to_dict() if len(targets) else {}
    for ident_id, n in counts.head(MAX_ROWS).items():
        cited = [d for d in held.get(ident_id, []) if d != doc["doc_id"]]
        res.rows.append({"ident_id": ident_id, "n_mentions": int(n), "cited_docs": cited})
        res.add_node(ident_node(ident_id), "identifier", ident_id)
        res.edges.append((doc_node(doc["doc_id"]), "cites", ident_node(ident_id)))
        for d in cited:
            res.add_node(doc_node(d), "document", d)
            res.edges.append((ident_node(ident_id), "is", doc_node(d)))
    return res


def cited_by(ctx: ToolContext, args: DocArgs) -> ToolResult:
    """Reverse: the readable documents that mention one of this document's identifiers."""
    doc = _doc_or_error(ctx, args.document)
    res = ToolResult()
    res.add_node(doc_node(doc["doc_id"]), "document", doc["file"])
    mine = ctx.store.rows("identities", ctx.user, "t.doc_id = :doc", {"doc": doc["doc_id"]})
    ids = sorted(set(mine["ident_id"].astype(str))) if len(mine) else []
    if doc.get("publication_base"):
        ids = sorted(set(ids) | set(_ident_ids(str(doc["publication_base"]))))
    citing = ctx.store.rows("mentions", ctx.user, "t.ident_id = ANY(:ids) AND t.doc_id <> :doc",
                            {"ids": ids, "doc": doc["doc_id"]})  # fmt: skip
    if citing.empty:
        res.note = "no readable document cites it (or mentions are not derived yet)"
        return res
    for (d, ident_id), group in citing.groupby(["doc_id", "ident_id"], sort=True):
        res.rows.append({"citing_doc": d, "ident_id": ident_id, "n_mentions": len(group),
                         "blocks": sorted(set(group["block_id"].dropna().astype(str)))[:5]})  # fmt: skip
        res.add_node(doc_node(d), "document", d)
        res.add_node(ident_node(ident_id), "identifier", ident_id)
        res.edges.append((doc_node(d), "cites", ident_node(ident_id)))
        res.edges.append((ident_node(ident_id), "is", doc_node(doc["doc_id"])))
    return res


def list_records(ctx: ToolContext, args: RecordArgs) -> ToolResult:
    where, params = [], {}
    if args.record_type:
        where.append("t.record_type = :rtype")
        params["rtype"] = args.record_type
    if args.document:
        params["doc"] = _doc_or_error(ctx, args.document)["doc_id"]
        where.append("t.doc_id = :doc")
    if args.contains:
        where.append("lower(t.text) LIKE :pat")
        params["pat"] = f"%{args.contains.lower()}%"
    rows = ctx.store.rows("records", ctx.user, " AND ".join(where), params, order="t.doc_id, t.key")
    res = ToolResult()
    for r in rows.head(MAX_ROWS).to_dict("records"):
        res.rows.append(r)
        res.add_node(record_node(r["record_id"]), "record", f"{r['record_type']} {r['key']}")
        res.add_node(doc_node(r["doc_id"]), "document", r["doc_id"])
        res.edges.append((doc_node(r["doc_id"]), "holds", record_node(r["record_id"])))
    res.note = f"{len(rows)} record(s)" + (f", first {MAX_ROWS} shown" if len(rows) > MAX_ROWS else "")
    return res


def run_sql(ctx: ToolContext, args: SqlArgs) -> ToolResult:
    from docintel.corpus.tools_sql import query_corpus

    try:
        out = query_corpus(ctx.store, ctx.user, args.query, limit=MAX_ROWS, timeout=SQL_TIMEOUT)
    except UsageError as exc:
        raise ToolError(f"SQL refused: {exc}") from exc
    res = ToolResult(rows=out.frame.astype(object).where(out.frame.notna(), None).to_dict("records"))
    for r in res.rows:  # rows that carry a stable id join the path
        if r.get("block_id"):
            res.add_node(block_node(str(r["block_id"])), "block", str(r["block_id"]))
        elif r.get("record_id"):
            res.add_node(record_node(str(r["record_id"])), "record", str(r["record_id"]))
        elif r.get("doc_id"):
            res.add_node(doc_node(str(r["doc_id"])), "document", str(r["doc_id"]))
    res.note = f"{len(res.rows)} row(s)" + (" (row cap reached)" if out.truncated else "")
    return res


class ToolError(Exception):
    """A tool's refusal or failure, shown to the model as the result (the loop goes on)."""


@dataclass(frozen=True)
class Tool:
    name: str
    args: type[BaseModel]
    run: Callable[[ToolContext, Any], ToolResult]

    @property
    def description(self) -> str:
        return (self.args.__doc__ or "").strip()

    def call(self, ctx: ToolContext, arguments: dict) -> ToolResult:
        from pydantic import ValidationError

        try:
            parsed = self.args.model_validate(arguments or {})
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first.get("loc", ())) or "arguments"
            raise ToolError(f"bad arguments for {self.name}: {where}: {first.get('msg')}") from exc
        return self.run(ctx, parsed)


TOOLS: dict[str, Tool] = {
    t.name: t
    for t in (
        Tool("search_blocks", SearchArgs, search_blocks),
        Tool("get_block", BlockArgs, get_block),
        Tool("lookup_identifier", IdentifierArgs, lookup_identifier),
        Tool("cites", DocArgs, cites),
        Tool("cited_by", DocArgs, cited_by),
        Tool("list_records", RecordArgs, list_records),
        Tool("sql", SqlArgs, run_sql),
    )
}


def tool_catalog(store=None, *, full_schema: bool = False) -> str:
    """The tools and their argument schemas as the model reads them, plus the SQL schema."""
    import json

    from docintel.corpus.tools_sql import schema_text

    lines = []
    for t in TOOLS.values():
        doc = (t.run.__doc__ or t.description).strip().splitlines()[0]
        props = {
            k: v.get("type", v.get("anyOf", "")) for k, v in t.args.model_json_schema()["properties"].items()
        }
        lines.append(f"- {t.name}({json.dumps(props)}): {doc}")
    return (
        "\n".join(lines)
        + "\nSQL tables (read-only, your rows only):\n"
        + schema_text(store, full=full_schema)
    )
