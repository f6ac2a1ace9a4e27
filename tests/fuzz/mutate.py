"""Deterministic mutations of real PDF bytes: byte flips, truncations, stream damage."""

from __future__ import annotations

import random
import re
from collections.abc import Callable

_STREAM = re.compile(rb"stream\r?\n(.*?)\r?\nendstream", re.S)


def _streams(data: bytes) -> list[tuple[int, int]]:
    return [(m.start(1), m.end(1)) for m in _STREAM.finditer(data) if m.end(1) > m.start(1)]


def flip_bytes(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 24)):
        i = rng.randrange(len(out))
        out[i] ^= 1 << rng.randrange(8)
    return bytes(out)


def flip_in_streams(data: bytes, rng: random.Random) -> bytes:
    spans = _streams(data)
    if not spans:
        return flip_bytes(data, rng)
    out = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        a, b = rng.choice(spans)
        i = rng.randrange(a, b)
        out[i] = rng.randrange(256)
    return bytes(out)


def truncate(data: bytes, rng: random.Random) -> bytes:
    return data[: max(16, int(len(data) * rng.uniform(0.05, 0.98)))]


def halve_stream(data: bytes, rng: random.Random) -> bytes:
    spans = _streams(data)
    if not spans:
        return truncate(data, rng)
    out = data
    for a, b in sorted(rng.sample(spans, k=min(len(spans), rng.randint(1, 4))), reverse=True):
        out = out[:a] + out[a : a + (b - a) // 2] + out[b:]
    return out


def zero_chunk(data: bytes, rng: random.Random) -> bytes:
    spans = _streams(data)
    if not spans:
        return flip_bytes(data, rng)
    a, b = rng.choice(spans)
    i = rng.randrange(a, b)
    n = min(b - i, rng.randint(8, 4096))
    return data[:i] + b"\x00" * n + data[i + n :]


def wrong_filter(data: bytes, rng: random.Random) -> bytes:
    hits = [m.start() for m in re.finditer(rb"/FlateDecode", data)]
    if not hits:
        return flip_in_streams(data, rng)
    i = rng.choice(hits)
    repl = rng.choice([b"/LZWDecode", b"/DCTDecode", b"/RunLengthDecode", b"/ASCII85Decode", b"/BogusDecode"])
    return data[:i] + repl + data[i + len(b"/FlateDecode") :]


def drop_contents(data: bytes, rng: random.Random) -> bytes:
    hits = list(re.finditer(rb"/Contents\s*(\d+\s+\d+\s+R|\[[^\]]*\])", data))
    if not hits:
        return flip_bytes(data, rng)
    m = rng.choice(hits)
    return data[: m.start()] + b" " * (m.end() - m.start()) + data[m.end() :]  # offsets stay valid


def junk_prefix(data: bytes, rng: random.Random) -> bytes:
    return bytes(rng.randrange(32, 127) for _ in range(rng.randint(100, 4000))) + b"\n" + data


def shuffle_chunks(data: bytes, rng: random.Random) -> bytes:
    n = rng.randint(3, 8)
    cuts = sorted(rng.sample(range(1, len(data)), n - 1))
    parts = [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]
    head, rest = parts[0], parts[1:]
    rng.shuffle(rest)
    return head + b"".join(rest)


MUTATIONS: dict[str, Callable[[bytes, random.Random], bytes]] = {
    "flip_bytes": flip_bytes,
    "flip_in_streams": flip_in_streams,
    "truncate": truncate,
    "halve_stream": halve_stream,
    "zero_chunk": zero_chunk,
    "wrong_filter": wrong_filter,
    "drop_contents": drop_contents,
    "junk_prefix": junk_prefix,
    "shuffle_chunks": shuffle_chunks,
}


def uncompressed(data: bytes) -> bytes:
    """The same document with its streams decompressed (so stream damage hits content operators)."""
    import pymupdf

    doc = pymupdf.open(stream=data, filetype="pdf")
    try:
        return doc.tobytes(expand=255, garbage=0)
    finally:
        doc.close()
