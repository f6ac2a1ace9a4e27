"""Parquet cache of the tables: keyed by content hash and everything that changes output.

Layout: ``<root>/<doc_id>/<options_key>`` is a symlink to a complete, never-modified version
folder ``.<options_key>.v-<ns>-<pid>/`` holding ``<table>.parquet`` + ``manifest.json``.

- **Bound to what produced it**: the manifest records the source sha256 and the sha256 of every
  Parquet file; :func:`load_checked` verifies both on every read, so a flipped byte, a table
  copied in from another document or an unreadable file is a miss (with its reason), never served.
- **Never loses the last good tables**: a save writes a temporary folder, renames it into a new
  version (complete, fsynced) and swaps the symlink with one ``os.replace``; at every instant the
  link names a complete version. An interrupted save is repaired by :func:`recover` on the next
  run (stale temp folders of dead processes removed, a missing link restored to the newest
  complete version, versions nothing points to removed).
- **Serialised**: :func:`locked` takes an exclusive ``flock`` on the ``<doc_id>`` folder, so two
  processes parsing one file never interleave; the second waits and then reads the first's result.

The versioned folders, the lock and the repair live in :mod:`docintel.parsing.versions`.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from docintel.errors import DocumentError
from docintel.parsing import arrow_copies, stamps
from docintel.parsing.versions import (  # noqa: F401 - locked, live_version, recover, MANIFEST: store's API
    MANIFEST,
    fault_point,
    link_or_copy,
    live_version,
    locked,
    new_version,
    recover,
)
from docintel.parsing.versions import write_file as _write_file  # tests replace store._write_file
from docintel.schema.document import DocTables
from docintel.schema.tables import SCHEMA_VERSION, TABLES, schema_major


def options_key(options: dict) -> str:
    """Short hash of everything that changes the tables (parser, version, options, schema)."""
    blob = json.dumps({**options, "schema_version": SCHEMA_VERSION}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:12]


def cache_dir(root: Path, doc_id: str, options: dict) -> Path:
    return Path(root) / doc_id / options_key(options)


# -- reading ----------------------------------------------------------------------------------


def load_checked(directory: Path, *, source_sha256: str | None = None) -> tuple[DocTables | None, str | None]:
    """Cached tables and ``None``, or ``None`` and why the entry cannot be served.

    The reason is ``None`` for a plain miss (nothing cached, another major schema); otherwise it
    names the damage (checksum mismatch, other source, unreadable file).
    """
    directory = Path(directory)
    live = live_version(directory)
    if live is None:
        return None, None
    mpath = live / MANIFEST
    if not mpath.exists():
        return None, "no manifest.json (incomplete entry)"
    stamps.forget(live)  # this read's record starts empty
    try:
        manifest = json.loads(stamps.read(live, MANIFEST).decode())
        version = manifest.get("schema_version", "0")
        schema_major(version)
    except (OSError, ValueError, AttributeError) as exc:
        return None, f"unreadable manifest.json ({exc})"
    if schema_major(version) > schema_major(SCHEMA_VERSION):
        raise DocumentError(
            f"{directory}: tables written by schema {version}, newer than this docintel "
            f"({SCHEMA_VERSION}); upgrade docintel or parse again into another folder"
        )
    if schema_major(version) != schema_major(SCHEMA_VERSION):
        return None, None
    if source_sha256 is not None and manifest.get("source_sha256") != source_sha256:
        return None, "written for other source bytes (source sha256 differs)"
    checksums = manifest.get("checksums")
    if not isinstance(checksums, dict):
        return None, "no table checksums in manifest.json"
    frames = {}
    for name in TABLES:
        try:
            data = stamps.read(live, f"{name}.parquet")
        except OSError as exc:
            return None, f"{name}.parquet unreadable ({exc.strerror or exc})"
        if hashlib.sha256(data).hexdigest() != checksums.get(name):
            return None, f"{name}.parquet checksum mismatch"
        try:
            # the Arrow IPC copy of these verified bytes when there is a sound one, else the
            # Parquet decoded; no Arrow thread pool for these small files: read_table over an
            # in-memory buffer leaves cleanup work on its IO threads, which at interpreter exit
            # can abort the process ("terminate called without an active exception",
            # apache/arrow#33975, #34314)
            table = _arrow_copy(live, manifest, name, checksums.get(name))
            if table is None:
                table = arrow_copies.parquet_table(data)
            frames[name] = table.to_pandas()
        except Exception as exc:  # ArrowInvalid and friends: a damaged file is a miss
            return None, f"{name}.parquet unreadable ({type(exc).__name__})"
        meta = table.schema.metadata or {}
        embedded = meta.get(b"docintel.source_sha256", b"").decode(errors="replace")
        if source_sha256 is not None and embedded and embedded != source_sha256:
            return None, f"{name}.parquet belongs to another document"
    rows = manifest.get("rows") or {}
    for name, df in frames.items():
        if name in rows and int(rows[name]) != len(df):
            return None, f"{name}.parquet has {len(df)} rows, manifest.json says {rows[name]}"
    tables = DocTables(
        doc_id=manifest["doc_id"], manifest=manifest, path=manifest.get("source_path"), **frames
    )
    return tables, None


def _arrow_copy(live: Path, manifest: dict, name: str, checksum: str | None):
    """The Arrow table of ``name``'s IPC copy in ``live`` when it is sound, else None."""
    entry = arrow_copies.valid_entry(manifest, name, checksum)
    if entry is None:
        return None
    try:
        data = stamps.read(live, entry["file"])
    except OSError:
        return None
    return arrow_copies.read(data, entry)


def missing_arrow_copies(tables: DocTables) -> list[str]:
    """The tables of a cached entry without a sound Arrow copy (from its manifest alone)."""
    if not tables.manifest.get("cache_dir"):
        return []
    sums = tables.manifest.get("checksums") or {}
    return [n for n in TABLES if arrow_copies.valid_entry(tables.manifest, n, sums.get(n)) is None]


def save_arrow_copies(tables: DocTables) -> bool:
    """Add the missing Arrow copies to the cache entry of ``tables`` (one new version, swapped in
    like any sidecar), each decoded from the live Parquet bytes the manifest's checksum vouches
    for. False when there is nothing to add or no entry to extend."""
    names = missing_arrow_copies(tables)
    if not names:
        return False
    sums = tables.manifest.get("checksums") or {}
    files = {n: f"{arrow_copies.sidecar(n)}.arrow" for n in names}

    def write(tmp: Path, manifest: dict) -> None:
        live = live_version(Path(tables.manifest["cache_dir"]))
        for n in files:
            raw = (live / f"{n}.parquet").read_bytes()
            if hashlib.sha256(raw).hexdigest() != sums[n]:
                continue  # not the bytes the tables in memory came from: no copy
            _write_arrow_copy(tmp, manifest, n, raw, sums[n])

    manifest = _republish(tables, tuple(files.values()), write, require=tuple(names))
    if manifest is None:
        return False
    tables.manifest["sidecars"] = manifest.get("sidecars") or {}
    return True


def _write_arrow_copy(tmp: Path, manifest: dict, name: str, parquet: bytes, checksum: str) -> None:
    """Write into the new version ``tmp`` the Arrow copy of table ``name`` decoded from its
    Parquet bytes ``parquet`` (whose sha256 is ``checksum``) and record it in ``manifest``."""
    file = f"{arrow_copies.sidecar(name)}.arrow"
    data = arrow_copies.to_bytes(arrow_copies.parquet_table(parquet))
    _write_file(tmp / file, data)
    manifest.setdefault("sidecars", {})[arrow_copies.sidecar(name)] = {
        "file": file,
        "key": arrow_copies.KEY,
        "sha256": hashlib.sha256(data).hexdigest(),
        "bytes": len(data),
        "built_from": {name: checksum},
    }


def load(directory: Path, *, source_sha256: str | None = None) -> DocTables | None:
    """Load cached tables, or None when absent, damaged, incomplete or of another major schema."""
    return load_checked(directory, source_sha256=source_sha256)[0]


# -- writing ----------------------------------------------------------------------------------


def _table_bytes(df: pd.DataFrame, name: str, meta: dict) -> bytes:
    table = TABLES[name].to_arrow(df)
    md = dict(table.schema.metadata or {})
    md.update({f"docintel.{k}".encode(): str(v).encode() for k, v in meta.items()})
    sink = pa.BufferOutputStream()
    pq.write_table(table.replace_schema_metadata(md), sink)
    return sink.getvalue().to_pybytes()


def save(tables: DocTables, directory: Path) -> Path:
    """Write every table plus the manifest as a new version of ``directory``, atomically.

    Call it inside :func:`locked`. On any failure nothing is left behind and the previous
    version stays live; an OSError (a full disk) becomes a :class:`StorageError`.
    """
    directory = Path(directory)
    with new_version(directory) as tmp:
        meta = {
            "schema_version": SCHEMA_VERSION,
            "parser": tables.manifest.get("parser"),
            "parser_version": tables.manifest.get("parser_version"),
            "source_sha256": tables.manifest.get("source_sha256"),
        }
        checksums = {}
        for name in TABLES:
            data = _table_bytes(tables.table(name), name, meta)
            checksums[name] = hashlib.sha256(data).hexdigest()
            _write_file(tmp / f"{name}.parquet", data)
            fault_point("mid-tables")
        manifest = {
            **tables.manifest,
            "schema_version": SCHEMA_VERSION,
            "rows": {n: int(len(tables.table(n))) for n in TABLES},
            "checksums": checksums,
        }
        hit = manifest.pop("cache_hit", False)  # a property of the read, not of the entry
        _write_file(tmp / MANIFEST, json.dumps(manifest, indent=2, default=str).encode())
    tables.manifest = {**manifest, "cache_hit": hit}
    return directory


def append_cross_refs(tables: DocTables, new_rows: pd.DataFrame) -> None:
    """Append on-demand (regex/llm) rows to cross_ref_df, in memory and in the cache.

    Rows already present (same origin, anchor and source) are not duplicated. The cached entry
    gets a new version (unchanged tables and sidecars hard-linked, cross_ref_df, its Arrow copy
    and the manifest rewritten) swapped in atomically, so the manifest's checksums always match the tables next to it.
    """
    from docintel.schema.tables import CROSS_REF_DF

    if new_rows is None or new_rows.empty:
        return
    cols = ["origin_page", "origin_line", "anchor_text", "source"]
    raw = list(zip(*(new_rows[c].tolist() for c in cols), strict=True))
    plain = all(type(v) in (int, str) for key in raw for v in key)  # conform keeps these values as they are
    if plain:
        here = _keys_on_pages(tables.cross_ref_df, cols, {key[0] for key in raw})
        if all(key in here for key in raw):
            return  # nothing new, known before the frame is conformed
    new_rows = CROSS_REF_DF.conform(new_rows)
    known = _cross_ref_keys(tables.cross_ref_df, cols)
    if all(key in known for key in zip(*(new_rows[c].tolist() for c in cols), strict=True)):
        return  # nothing new (a key with a missing value never matches here: the merge decides)
    merged = pd.concat([tables.cross_ref_df, new_rows], ignore_index=True)
    merged = merged.drop_duplicates(subset=cols, keep="first").reset_index(drop=True)
    if len(merged) == len(tables.cross_ref_df):
        return
    tables.cross_ref_df = CROSS_REF_DF.conform(merged)

    copy = f"{arrow_copies.sidecar('cross_ref_df')}.arrow"

    def write(tmp: Path, manifest: dict) -> None:
        meta = {"schema_version": SCHEMA_VERSION, "source_sha256": manifest.get("source_sha256")}
        data = _table_bytes(tables.cross_ref_df, "cross_ref_df", meta)
        _write_file(tmp / "cross_ref_df.parquet", data)
        checksum = hashlib.sha256(data).hexdigest()
        manifest.setdefault("checksums", {})["cross_ref_df"] = checksum
        manifest.setdefault("rows", {})["cross_ref_df"] = int(len(tables.cross_ref_df))
        # its Arrow copy in the same version (the old one is stale now), not in a second
        # version written by the ask's next `save_arrow_copies`
        _write_arrow_copy(tmp, manifest, "cross_ref_df", data, checksum)

    manifest = _republish(tables, ("cross_ref_df.parquet", copy), write)
    if manifest is not None:
        tables.manifest["checksums"] = manifest["checksums"]
        tables.manifest["rows"] = manifest["rows"]
        tables.manifest["sidecars"] = manifest.get("sidecars") or {}


#: (the cross_ref_df object, its row keys): the keys of the frame last appended to, kept while it lives.
_KEYS: list = [None, frozenset()]


def _keys_on_pages(df: pd.DataFrame, cols: list[str], pages: set[int]) -> set:
    """The ``cols`` tuples (``cols[0]`` is ``origin_page``) of the rows of ``df`` on ``pages``:
    the only rows a key with one of those origin pages can equal (every learned reference of an
    ask is checked against them, not against every row of a long document's cross_ref_df)."""
    import numpy as np

    rows = df.iloc[np.flatnonzero(np.isin(df[cols[0]].to_numpy(), sorted(pages)))]
    return set(zip(*(rows[c].tolist() for c in cols), strict=True))


def _cross_ref_keys(df: pd.DataFrame, cols: list[str]) -> frozenset:
    """The ``cols`` tuples of every row of ``df`` (built once per frame object)."""
    if _KEYS[0] is not df:
        _KEYS[:] = [df, frozenset(zip(*(df[c].tolist() for c in cols), strict=True))]
    return _KEYS[1]


# -- sidecars: data derived from the tables alone (the retrieval index), kept in the entry --------


def load_sidecar(tables: DocTables, name: str, key: str) -> bytes | None:
    """The bytes of sidecar ``name`` of the cached entry ``tables`` came from, or None.

    Served only when it was written under ``key`` (the caller's code fingerprint), from the very
    tables now in memory (the checksums of the tables it was built from match) and its own
    sha256 in the live manifest checks out; anything else is a miss and the caller rebuilds it.
    """
    cache = tables.manifest.get("cache_dir")
    live = live_version(Path(cache)) if cache else None
    if live is None:
        return None
    try:
        manifest = json.loads(stamps.read(live, MANIFEST).decode())
        entry = (manifest.get("sidecars") or {})[name]
        if entry["key"] != key or not _built_from_these(entry["built_from"], tables):
            return None
        if Path(entry["file"]).name != entry["file"]:
            return None
        data = stamps.read(live, entry["file"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return data if hashlib.sha256(data).hexdigest() == entry.get("sha256") else None


def save_sidecar(tables: DocTables, name: str, data: bytes, key: str, *, built_from: tuple[str, ...]) -> bool:
    """Store ``data`` as sidecar ``name`` of the cached entry of ``tables`` (a new version,
    swapped in atomically like a save). ``built_from`` names the tables it was derived from:
    their checksums are recorded and must match on load. False when there is no entry to
    extend (not cached, or replaced meanwhile by another parse); a full disk raises StorageError."""
    sums = tables.manifest.get("checksums") or {}
    if any(not sums.get(t) for t in built_from):
        return False
    file = f"{name}.bin"

    def write(tmp: Path, manifest: dict) -> None:
        _write_file(tmp / file, data)
        manifest.setdefault("sidecars", {})[name] = {
            "file": file,
            "key": key,
            "sha256": hashlib.sha256(data).hexdigest(),
            "bytes": len(data),
            "built_from": {t: sums[t] for t in built_from},
        }

    manifest = _republish(tables, file, write, require=built_from)
    if manifest is None:
        return False
    tables.manifest["sidecars"] = manifest["sidecars"]
    return True


def _built_from_these(built_from: dict, tables: DocTables) -> bool:
    sums = tables.manifest.get("checksums") or {}
    return bool(built_from) and all(sums.get(t) == c for t, c in built_from.items())


def _republish(
    tables: DocTables, replaced: str | tuple[str, ...], write, *, require: tuple[str, ...] = ()
) -> dict | None:
    """A new version of the cached entry of ``tables``: every file of the live version but
    ``replaced`` (a file name or several) hard-linked, then ``write(tmp, manifest)`` adds its file and edits the manifest,
    which is written last. None (nothing done) when the entry is gone, belongs to other source
    bytes, or its tables named in ``require`` are no longer the ones in memory."""
    cache = tables.manifest.get("cache_dir")
    if not cache or not Path(cache).exists():
        return None
    directory = Path(cache)
    sums = tables.manifest.get("checksums") or {}
    replaced = (replaced,) if isinstance(replaced, str) else tuple(replaced)
    with locked(directory):
        live = live_version(directory)
        if live is None:
            return None
        manifest = json.loads((live / MANIFEST).read_text())
        if manifest.get("source_sha256") != tables.manifest.get("source_sha256"):
            return None  # the entry was replaced under us; it is not ours to extend
        if any((manifest.get("checksums") or {}).get(t) != sums.get(t) for t in require):
            return None
        with new_version(directory) as tmp:
            files = [f"{n}.parquet" for n in TABLES]
            files += [e.get("file") for e in (manifest.get("sidecars") or {}).values() if isinstance(e, dict)]
            for f in files:
                if f and f == Path(f).name and f not in replaced and (live / f).exists():
                    link_or_copy(live / f, tmp / f)
            write(tmp, manifest)
            _write_file(tmp / MANIFEST, json.dumps(manifest, indent=2, default=str).encode())
    return manifest
