"""Parquet cache of the tables: keyed by content hash and everything that changes output.

Layout: ``<root>/<doc_id>/<options_key>/<table>.parquet`` + ``manifest.json``.
Writes go to a temporary sibling folder that is renamed into place, so an
interrupted parse never leaves half-written tables and never damages the
previous good output.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq

from docintel.errors import DocumentError
from docintel.schema.document import DocTables
from docintel.schema.tables import SCHEMA_VERSION, TABLES, schema_major

MANIFEST = "manifest.json"


def options_key(options: dict) -> str:
    """Short hash of everything that changes the tables (parser, version, options, schema)."""
    blob = json.dumps({**options, "schema_version": SCHEMA_VERSION}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:12]


def cache_dir(root: Path, doc_id: str, options: dict) -> Path:
    return Path(root) / doc_id / options_key(options)


def load(directory: Path) -> DocTables | None:
    """Load cached tables, or None when absent, incomplete or of another major schema."""
    directory = Path(directory)
    mpath = directory / MANIFEST
    if not mpath.exists():
        return None
    try:
        manifest = json.loads(mpath.read_text())
    except (OSError, ValueError):
        return None
    version = manifest.get("schema_version", "0")
    if schema_major(version) > schema_major(SCHEMA_VERSION):
        raise DocumentError(
            f"{directory}: tables written by schema {version}, newer than this docintel "
            f"({SCHEMA_VERSION}); upgrade docintel or parse again into another folder"
        )
    if schema_major(version) != schema_major(SCHEMA_VERSION):
        return None
    frames = {}
    for name in TABLES:
        f = directory / f"{name}.parquet"
        if not f.exists():
            return None
        frames[name] = pq.read_table(f).to_pandas()
    return DocTables(doc_id=manifest["doc_id"], manifest=manifest, path=manifest.get("source_path"), **frames)


def _write_table(df: pd.DataFrame, name: str, path: Path, meta: dict) -> None:
    table = TABLES[name].to_arrow(df)
    md = dict(table.schema.metadata or {})
    md.update({f"docintel.{k}".encode(): str(v).encode() for k, v in meta.items()})
    pq.write_table(table.replace_schema_metadata(md), path)


def save(tables: DocTables, directory: Path) -> Path:
    """Write every table plus the manifest atomically into ``directory``."""
    directory = Path(directory)
    directory.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{directory.name}.tmp-", dir=directory.parent))
    try:
        meta = {
            "schema_version": SCHEMA_VERSION,
            "parser": tables.manifest.get("parser"),
            "parser_version": tables.manifest.get("parser_version"),
            "source_sha256": tables.manifest.get("source_sha256"),
        }
        for name in TABLES:
            _write_table(tables.table(name), name, tmp / f"{name}.parquet", meta)
        manifest = {
            **tables.manifest,
            "schema_version": SCHEMA_VERSION,
            "rows": {n: int(len(tables.table(n))) for n in TABLES},
        }
        (tmp / MANIFEST).write_text(json.dumps(manifest, indent=2, default=str))
        tables.manifest = manifest
        old = None
        if directory.exists():
            old = directory.with_name(f".{directory.name}.old-{os.getpid()}")
            directory.rename(old)
        tmp.rename(directory)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return directory


def append_cross_refs(tables: DocTables, new_rows: pd.DataFrame) -> None:
    """Append on-demand (regex/llm) rows to cross_ref_df, in memory and in the cache.

    Rows already present (same origin, anchor and source) are not duplicated.
    """
    from docintel.schema.tables import CROSS_REF_DF

    if new_rows is None or new_rows.empty:
        return
    cols = ["origin_page", "origin_line", "anchor_text", "source"]
    merged = pd.concat([tables.cross_ref_df, CROSS_REF_DF.conform(new_rows)], ignore_index=True)
    merged = merged.drop_duplicates(subset=cols, keep="first").reset_index(drop=True)
    if len(merged) == len(tables.cross_ref_df):
        return
    tables.cross_ref_df = CROSS_REF_DF.conform(merged)
    cache = tables.manifest.get("cache_dir")
    if cache and Path(cache).exists():
        path = Path(cache) / "cross_ref_df.parquet"
        tmp = path.with_suffix(".parquet.tmp")
        _write_table(tables.cross_ref_df, "cross_ref_df", tmp, {"schema_version": SCHEMA_VERSION})
        os.replace(tmp, path)
