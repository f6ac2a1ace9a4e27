"""Ingestion: one task per document on the existing parser, the client the single writer.

``plan`` decides per file (new, changed -> new version superseding the old, unchanged ->
no-op, byte-identical to another file -> alias); ``parse_task`` runs anywhere (a Dask
worker or this process) and returns the document's identity row and blocks; the client
collects the results and commits them as one new generation. A file that fails (corrupt,
encrypted, not a PDF) is reported with its reason and the rest commits.
"""

from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from docintel.corpus.store import DOCUMENT_COLUMNS, Change
from docintel.corpus.stores import open_store
from docintel.errors import DocintelError, UsageError


@dataclass
class Summary:
    documents: int = 0  # files considered
    parsed: int = 0
    cache_hits: int = 0  # parsed documents whose tables came from the per-document cache
    refreshed: int = 0  # unchanged files rebuilt because the parser or the block rules changed
    unchanged: int = 0
    duplicates: list[tuple[str, str]] = field(default_factory=list)  # (file, of)
    superseded: list[tuple[str, str]] = field(default_factory=list)  # (file, old doc_id)
    failures: list[tuple[str, str]] = field(default_factory=list)  # (file, reason)
    pages: int = 0
    seconds: float = 0.0
    generation: str = ""
    executor: str = "serial"
    warnings: list[str] = field(default_factory=list)
    index: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        d = dict(self.__dict__)
        d["pages_per_second"] = round(self.pages / self.seconds, 2) if self.seconds else None
        return d

    def lines(self) -> list[str]:
        out = [
            f"documents: {self.documents} (parsed {self.parsed}"
            + (f" of which {self.cache_hits} from the parse cache" if self.cache_hits else "")
            + (f", rebuilt for a new parser {self.refreshed}" if self.refreshed else "")
            + f", unchanged {self.unchanged}, "
            f"duplicates {len(self.duplicates)}, new versions {len(self.superseded)}, failed {len(self.failures)})",
            f"pages parsed: {self.pages}",
        ]
        out += [f"  duplicate: {f} = {of}" for f, of in self.duplicates]
        out += [f"  new version: {f} supersedes {old}" for f, old in self.superseded]
        out += [f"  failed: {f}: {why}" for f, why in self.failures]
        out += [f"warning: {w}" for w in self.warnings]
        rate = f", {self.pages / self.seconds:.1f} pages/s" if self.seconds and self.pages else ""
        out.append(f"generation {self.generation} ({self.executor}), time {self.seconds:.1f}s{rate}")
        return out


def build_version(parser_version: str | None, options: dict | None = None) -> str:
    """What the stored rows of a document depend on: the parser's version, the parse options
    that change the tables (the parse cache's key), the block rules and the derivers."""
    from docintel.corpus.blocks import BLOCKS_VERSION
    from docintel.corpus.derive import derivers_version

    return f"{parser_version}|{parse_key(options or {})}|blocks-{BLOCKS_VERSION}|derive-{derivers_version()}"


def parse_key(options: dict) -> str:
    """The parse cache's options key for these ingest parse options (layout, ocr, parser ...)."""
    from docintel.parsing import PARSER_VERSION, _ocr_token
    from docintel.parsing.store import options_key
    from docintel.settings import Settings

    known = {k: options[k] for k in ("layout", "ocr", "parser", "eager_refs") if options.get(k) is not None}
    settings = Settings(**known)
    return options_key(
        settings.cache_options(
            parser_version=PARSER_VERSION,
            ocr_token=_ocr_token(settings.ocr) if settings.parser == "pymupdf" else None,
        )
    )


def current_build(options: dict | None = None) -> str:
    from docintel.parsing import PARSER_VERSION

    return build_version(PARSER_VERSION, options)


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def scan(inputs: list[str | Path]) -> list[Path]:
    """Files to ingest: the given files, and every non-hidden file of the given folders."""
    out: list[Path] = []
    for item in inputs:
        p = Path(item)
        if p.is_dir():
            out += sorted(f for f in p.iterdir() if f.is_file() and not f.name.startswith("."))
        elif p.is_file():
            out.append(p)
        else:
            raise UsageError(f"{p}: no such file or folder")
    return out


def parse_task(path: str, docs_dir: str, options: dict) -> dict:
    """Parse one file into the store's per-document cache; identity and blocks back (worker side)."""
    from docintel.corpus.blocks import make_blocks
    from docintel.corpus.derive import derive
    from docintel.corpus.identity import content_sha, identify
    from docintel.parsing import parse_document

    t0 = time.perf_counter()
    name = Path(path).name
    try:
        tables = parse_document(path, out_dir=docs_dir, **options)
    except DocintelError as exc:  # the document's fault: reported, not retried
        return {"ok": False, "file": name, "error": str(exc)}
    title = None
    try:
        import pymupdf

        with pymupdf.open(path) as pdf:
            title = (pdf.metadata or {}).get("title")
    except Exception:  # metadata is optional; the text identifies the document
        title = None
    m = tables.manifest
    ident = identify(tables, title)
    doc = {
        "doc_id": tables.doc_id,
        "file": name,
        "path": str(Path(path).resolve()),
        "sha256": m.get("source_sha256"),
        "bytes": m.get("source_bytes"),
        "pages": m.get("pages"),
        "content_sha": content_sha(tables),
        "cache_dir": m.get("cache_dir"),
        "parser_version": build_version(m.get("parser_version"), options),
        **ident,
    }
    blocks = make_blocks(tables, context=f"{ident['title']} {ident['publication_id'] or ''}")
    return {
        "ok": True,
        "file": name,
        "doc": doc,
        "blocks": blocks,
        "derived": derive(tables, blocks, doc),
        "cache_hit": bool(m.get("cache_hit")),
        "seconds": round(time.perf_counter() - t0, 3),
    }


def _run_serial(jobs, docs_dir, options, retries, progress):
    for i, path in enumerate(jobs, 1):
        for attempt in range(retries + 1):
            try:
                res = parse_task(str(path), docs_dir, options)
                break
            except Exception as exc:  # unexpected (worker-side) failure: retried, then reported
                res = {"ok": False, "file": path.name, "error": f"{type(exc).__name__}: {exc}"}
                if attempt == retries:
                    break
        if progress:
            progress(i, len(jobs), path.name)
        yield res


def _run_dask(jobs, docs_dir, options, retries, progress, workers, scheduler):
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise UsageError("--workers/--scheduler need Dask: pip install 'docintel[dask]'") from None
    cluster = None
    if scheduler:
        client = Client(scheduler, timeout="20s")
    else:
        cluster = LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
        )
        client = Client(cluster)
    try:
        futures = {
            client.submit(parse_task, str(p), docs_dir, options, retries=retries, pure=False): p for p in jobs
        }
        for i, fut in enumerate(as_completed(futures), 1):
            path = futures[fut]
            try:
                res = fut.result()
            except Exception as exc:  # failed on every retry (a worker died, out of memory ...)
                res = {"ok": False, "file": path.name, "error": f"{type(exc).__name__}: {exc}"}
            if progress:
                progress(i, len(jobs), path.name)
            yield res
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def ingest(
    location: str | Path,
    inputs: list[str | Path],
    *,
    group: list[str] | None = None,
    groups_file: str | Path | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    parse_options: dict | None = None,
    retries: int = 2,
    progress=None,
    docs_dir: str | Path | None = None,
) -> Summary:
    """Ingest files/folders into the store at ``location`` and commit one new generation."""
    from docintel.corpus.access import load_groups_file
    from docintel.corpus.index import KeywordIndex

    t0 = time.perf_counter()
    doc_groups, user_groups = load_groups_file(groups_file) if groups_file else ({}, {})
    scheduler = scheduler or (os.environ.get("DASK_SCHEDULER_ADDRESS") if not workers else None)
    files = scan(inputs)
    if groups_file:  # the groups file may sit in the folder it describes; it is not a document
        files = [f for f in files if f.resolve() != Path(groups_file).resolve()]
    store = open_store(location, create=True, **({"docs_dir": docs_dir} if docs_dir else {}))
    summary = Summary(documents=len(files))
    summary.executor = (
        f"dask {scheduler}" if scheduler else f"dask {workers} workers" if workers else "serial"
    )
    with store.writer_lock():
        docs = store.table("documents")
        live = docs[docs["superseded_by"].isna()]
        by_file = {r.file: r for r in live.itertuples(index=False)}
        by_sha = {r.sha256: r for r in live.itertuples(index=False)}
        change = Change()
        change.members = [(u, g) for u, gs in user_groups.items() for g in gs]
        build = current_build(parse_options)
        jobs = []
        batch: dict[str, str] = {}  # sha256 -> first file of this run with those bytes
        twins: list[tuple[str, str, list[str]]] = []  # (first file, twin file, twin's groups)
        for f in files:
            groups = doc_groups.get(f.name) or list(group or [])
            sha = sha256_file(f)
            old = by_file.get(f.name)
            if old is not None and old.sha256 == sha and old.parser_version == build:
                summary.unchanged += 1
                change.access += [(old.doc_id, g) for g in groups]
            elif sha in by_sha and by_sha[sha].file != f.name:
                twin = by_sha[sha]
                summary.duplicates.append((f.name, f"{twin.file} (byte-identical)"))
                change.access += [(twin.doc_id, g) for g in groups]
                known = str(twin.aliases).split("|") if isinstance(twin.aliases, str) and twin.aliases else []
                if f.name not in known:
                    row = {**twin._asdict(), "aliases": "|".join(sorted({*known, f.name}))}
                    change.documents = pd.concat([change.documents, pd.DataFrame([row])], ignore_index=True)
            elif sha in batch:
                summary.duplicates.append((f.name, f"{batch[sha]} (byte-identical)"))
                twins.append((batch[sha], f.name, groups))
            else:
                batch[sha] = f.name
                jobs.append(f)
        options = {"progress": None, **(parse_options or {})}
        run = (
            _run_dask(jobs, str(store.docs_dir), options, retries, progress, workers, scheduler)
            if (workers or scheduler) and jobs
            else _run_serial(jobs, str(store.docs_dir), options, retries, progress)
        )
        results = sorted(run, key=lambda r: r["file"])  # commit order independent of completion order
        acc = store.table("access")
        old_access = acc.groupby("doc_id")["grp"].apply(list).to_dict() if len(acc) else {}
        _apply(results, change, summary, by_file, live, doc_groups, group, old_access)
        docs_new = change.documents
        for first, twin, groups in twins:  # twins within this run: an alias of the parsed one
            hit = docs_new.index[docs_new["file"] == first]
            if len(hit):
                i = hit[0]
                known = (
                    str(docs_new.at[i, "aliases"]).split("|")
                    if isinstance(docs_new.at[i, "aliases"], str)
                    else []
                )
                docs_new.at[i, "aliases"] = "|".join(sorted({*known, twin}))
                change.access += [(docs_new.at[i, "doc_id"], g) for g in groups]
        # re-granting what is already granted is not a change (an unchanged corpus is a no-op)
        have_acc = set(map(tuple, acc[["doc_id", "grp"]].itertuples(index=False, name=None)))
        mem = store.table("members")
        have_mem = set(map(tuple, mem[["usr", "grp"]].itertuples(index=False, name=None)))
        change.access = [a for a in dict.fromkeys(change.access) if a not in have_acc]
        change.members = [m for m in dict.fromkeys(change.members) if m not in have_mem]
        if change.is_empty() and store.generation() != "0":
            summary.generation = store.generation()
        else:
            summary.generation = store.commit(change)
        summary.index = KeywordIndex(store.index_dir).sync(store)
        all_docs = store.table("documents")
        acc = store.table("access")
        orphans = sorted(
            set(all_docs.loc[all_docs["superseded_by"].isna(), "file"])
            - set(all_docs.loc[all_docs["doc_id"].isin(acc["doc_id"]), "file"])
        )
        if orphans:
            summary.warnings.append(
                f"{len(orphans)} document(s) belong to no group, so nobody can read them"
                f" (give --group or a groups file): {', '.join(orphans[:5])}"
            )
    store.close()
    summary.seconds = round(time.perf_counter() - t0, 3)
    return summary


def _apply(results, change, summary, by_file, live, doc_groups, group, old_access) -> None:
    seen_content = {r.content_sha: r.doc_id for r in live.itertuples(index=False) if r.content_sha}
    rows = []
    blocks = []
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    for res in results:
        if not res["ok"]:
            summary.failures.append((res["file"], res["error"]))
            continue
        doc = dict(res["doc"])
        summary.parsed += 1
        summary.cache_hits += bool(res.get("cache_hit"))
        summary.pages += int(doc["pages"] or 0)
        old = by_file.get(doc["file"])
        groups = doc_groups.get(doc["file"]) or list(group or [])
        doc.update(version=1, supersedes=None, superseded_by=None, aliases=None, ingested_at=stamp)
        if old is not None and old.doc_id == doc["doc_id"]:  # same bytes, newer parser or block rules
            doc.update(version=old.version, supersedes=old.supersedes, aliases=old.aliases)
            summary.refreshed += 1
        if old is not None and old.doc_id != doc["doc_id"]:
            doc.update(version=int(old.version or 1) + 1, supersedes=old.doc_id)
            rows.append({**old._asdict(), "superseded_by": doc["doc_id"]})
            change.drop_docs.add(old.doc_id)
            summary.superseded.append((doc["file"], old.doc_id))
            if not groups:  # a new version keeps the old one's groups unless told otherwise
                groups = list(old_access.get(old.doc_id, []))
        twin = seen_content.get(doc["content_sha"])
        doc["duplicate_of"] = twin if twin and twin != doc["doc_id"] else None
        if doc["duplicate_of"]:
            summary.duplicates.append((doc["file"], f"{twin} (same content)"))
        seen_content.setdefault(doc["content_sha"], doc["doc_id"])
        rows.append(doc)
        change.access += [(doc["doc_id"], g) for g in groups]
        blocks.append(res["blocks"])
        change.rewrite_docs.add(doc["doc_id"])  # its derived rows are replaced, even by none
        for table, derived in (res.get("derived") or {}).items():
            change.add_rows(table, derived)
    if rows:
        new = pd.DataFrame(rows).reindex(columns=DOCUMENT_COLUMNS)
        change.documents = pd.concat([change.documents, new], ignore_index=True)
    if blocks:
        change.blocks = pd.concat([b for b in blocks if not b.empty] or blocks, ignore_index=True)
