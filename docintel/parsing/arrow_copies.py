"""Arrow IPC copies of the cached Parquet tables: the same Arrow tables, read without decoding.

A cached ask reads every table; decoding ``line_df``'s Parquet (dictionary pages, Snappy) is
most of the read and grows with the document (~12 ms of ~35 ms on 600 pages), while an IPC
file (LZ4 frames) is read in ~2 ms. Each copy is a sidecar of the cache entry
(``arrow_<table>``) holding the Arrow table decoded from that table's verified Parquet bytes,
schema metadata included, so ``to_pandas()`` gives the same frame. The Parquet file stays the
table of record: it is still read and its checksum verified on every load; the copy is used only
when its own sha256 and the Parquet checksum it was built from both match, else the Parquet is
decoded as before.
"""

from __future__ import annotations

import hashlib

import pyarrow as pa
import pyarrow.parquet as pq

#: Sidecar name of a table's copy, and the key its entries carry (a new layout gets a new key).
PREFIX = "arrow_"
KEY = "arrow-ipc-1"


def sidecar(name: str) -> str:
    return f"{PREFIX}{name}"


def codec() -> str | None:
    return "lz4" if pa.Codec.is_available("lz4") else None


def valid_entry(manifest: dict, name: str, checksum: str | None) -> dict | None:
    """The manifest entry of ``name``'s copy when it was built from the Parquet bytes whose
    checksum is ``checksum`` under this layout, else None."""
    entry = (manifest.get("sidecars") or {}).get(sidecar(name))
    if not isinstance(entry, dict) or entry.get("key") != KEY or not checksum:
        return None
    if (entry.get("built_from") or {}) != {name: checksum}:
        return None
    file = entry.get("file")
    return entry if isinstance(file, str) and file == file.split("/")[-1] else None


def read(data: bytes, entry: dict) -> pa.Table | None:
    """The Arrow table of a copy's bytes, or None when they are not the ones recorded."""
    if hashlib.sha256(data).hexdigest() != entry.get("sha256"):
        return None
    try:
        return pa.ipc.open_file(pa.BufferReader(data)).read_all()
    except (pa.ArrowInvalid, pa.ArrowException, OSError, ValueError):
        return None


def parquet_table(data: bytes) -> pa.Table:
    """How the store decodes a table's Parquet bytes (no Arrow thread pool: see ``store``).

    ``ParquetFile.read``, not ``pq.read_table``: the same table (schema metadata included), but
    ``read_table`` imports ``pyarrow.dataset`` on its first call (~10 ms CPU with the files in the
    OS cache, ~0.3 s from a cold disk), which an ask that wrote an Arrow copy paid."""
    return pq.ParquetFile(pa.BufferReader(data), pre_buffer=False).read(use_threads=False)


def to_bytes(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    options = pa.ipc.IpcWriteOptions(compression=codec(), use_threads=False)
    with pa.ipc.new_file(sink, table.schema, options=options) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()
