"""Census of identifiers over a folder of PDFs: mentions, documents linked, spellings, self-identity.

Usage:
    python scripts/ident_census.py PDF_DIR [--cache DIR] [--top N]
        [--measured identifiers.md] [--recall measure_identifiers.py] [--questions dev_questions.jsonl]
        [--sample N --seed S --sample-out FILE]

Every PDF is parsed with the default parser (``layout="never"``, cached in ``--cache``).
``--measured`` compares documents per id with the counts of a measured ``identifiers.md``
(NIST corpus); ``--recall`` runs that corpus's measuring regexes on the PyMuPDF page text and
reports the share of their mentions the normalizer finds with the same key; ``--sample``
writes a seeded random sample of mentions with their line text for a hand check.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys
import unicodedata
from collections import Counter, defaultdict
from pathlib import Path

import pandas as pd

from docintel.corpus.links import identity_rows, link_graph, mentions_for, self_identity
from docintel.identifiers import find_identifiers, names_series, normalize
from docintel.parsing import parse_document

# measured family -> (our kind(s), how the measured key is spelled in ours)
FAMILY = {
    "SP": (("sp",), lambda k: k),
    "FIPS": (("fips",), lambda k: k),
    "IR": (("nistir",), lambda k: "NISTIR " + k.split()[1]),
    "CSF_NAME": (("framework",), lambda k: k),
    "CSF_SUB": (("csf_subcategory",), lambda k: k),
    "CSF_CAT": (("csf_category",), lambda k: k),
    "CTRL": (("control",), lambda k: k),
    "HIPAA": (("cfr",), lambda k: "45 CFR " + k),
    "REQ171": (("requirement",), lambda k: k),
}
APPENDIX = {"SP 800-x": "SP", "FIPS": "FIPS", "NISTIR": "IR", "CSF subcategory": "CSF_SUB", "CSF category": "CSF_CAT",
            "SP 800-53 control": "CTRL", "HIPAA section": "HIPAA"}  # fmt: skip


def load(pdf_dir: Path, cache: str) -> list:
    out = []
    for p in sorted(pdf_dir.glob("*.pdf")):
        t = parse_document(p, layout="never", out_dir=cache)
        out.append((p.name, t))
        print(f"parsed {p.name}", file=sys.stderr)
    return out


def measured_docs_per_key(md: Path) -> dict[str, dict[str, int]]:
    """The appendix of identifiers.md: family -> {our key: documents mentioning it}."""
    out: dict[str, dict[str, int]] = {}
    for line in md.read_text(encoding="utf-8").splitlines():
        m = re.match(r"\*\*(.+?)\*\* \(\d+ keys\): (.*)", line)
        if m and m.group(1) in APPENDIX:
            fam = APPENDIX[m.group(1)]
            conv = FAMILY[fam][1]
            out[fam] = {conv(k): int(n) for k, n in re.findall(r"`([^`]+)` (\d+)", m.group(2))}
    return out


def census(docs: list, top: int, measured: Path | None) -> tuple[pd.DataFrame, dict]:
    names = {t.doc_id: name for name, t in docs}
    ids = {t.doc_id: self_identity(t) for _, t in docs}
    mentions = pd.concat([mentions_for(t, home=ids[t.doc_id]) for _, t in docs], ignore_index=True)
    mentions["file"] = mentions["doc_id"].map(names)
    print("## Self-identity per document\n")
    for d, idents in ids.items():
        shown = (
            ", ".join(f"{i.full}{' (draft)' if i.attr('status') == 'draft' else ''}" for i in idents) or "-"
        )
        ev = "; ".join(i.attr("evidence") or "" for i in idents)
        print(f"- {names[d]}: {shown}   [{ev}]")
    print(f"\n## Mentions: {len(mentions)} in {mentions['doc_id'].nunique()} documents\n")
    by_kind = mentions.groupby("kind").agg(mentions=("ident_id", "size"), ids=("ident_id", "nunique"),
                                           documents=("doc_id", "nunique"), spellings=("surface", "nunique"))  # fmt: skip
    print(by_kind.sort_values("mentions", ascending=False).to_string())
    own = defaultdict(set)
    for d, idents in ids.items():
        for i in idents:
            own[i.canonical].add(d)
    per = mentions.groupby("ident_id").agg(mentions=("doc_id", "size"), documents=("doc_id", "nunique"),
                                           spellings=("surface", "nunique"), kind=("kind", "first"))  # fmt: skip
    per["other_documents"] = [
        mentions.loc[mentions["ident_id"] == k, "doc_id"]
        .drop_duplicates()
        .isin(own.get(k, set()))
        .eq(False)
        .sum()
        for k in per.index
    ]
    print(f"\n## Top {top} ids by documents mentioning them (other = not the document that is it)\n")
    print(per.sort_values(["documents", "mentions"], ascending=False).head(top).to_string())
    print("\n## Spellings per id (publications cited by most documents)\n")
    pubs = per[per["kind"].isin(["sp", "fips", "nistir"])].sort_values("documents", ascending=False).head(12)
    for k in pubs.index:
        sp = Counter(mentions.loc[mentions["ident_id"] == k, "surface"]).most_common()
        print(f"- {k} ({len(sp)} spellings): " + "; ".join(f"`{s}` {n}" for s, n in sp[:10]))
    if measured:
        compare_measured(per, measured)
    idents = pd.concat([identity_rows(d, i) for d, i in ids.items()], ignore_index=True)
    links = link_graph(mentions, idents)
    linked_docs = set(links["citing_doc"])
    print(
        f"\n## Link graph: {len(links)} edges, {len(linked_docs)} of {len(docs)} documents link to another\n"
    )
    lonely = sorted(names[d] for d in names if d not in linked_docs)
    print("documents citing no other corpus document: " + (", ".join(lonely) or "none"))
    cited = links.groupby("ident_id")["citing_doc"].nunique().sort_values(ascending=False)
    print(
        "documents citing each held publication: " + ", ".join(f"{k} {n}" for k, n in cited.head(15).items())
    )
    pairs = links.groupby(["citing_doc", "cited_doc"]).size()
    print(f"document pairs linked: {len(pairs)}; editions: {links['edition'].value_counts().to_dict()}")
    mis = links[links["edition"] == "mismatch"]
    for note, n in Counter(mis["ident_id"] + ": " + mis["note"]).most_common(8):
        print(f"- {note} ({n} citing forms)")
    return mentions, ids


def compare_measured(per: pd.DataFrame, md: Path) -> None:
    meas = measured_docs_per_key(md)
    print("\n## Documents per id: ours vs identifiers.md (both include the document that is it)\n")
    print(
        "| family | keys measured | keys found | same count | within 1 | ours lower | examples (id: ours/measured) |"
    )
    print("|---|---|---|---|---|---|---|")
    diffs = []
    for fam, keys in meas.items():
        got = {k: int(per.loc[k, "documents"]) if k in per.index else 0 for k in keys}
        same = sum(got[k] == n for k, n in keys.items())
        near = sum(abs(got[k] - n) <= 1 for k, n in keys.items())
        lower = [k for k, n in keys.items() if got[k] < n]
        top = sorted(keys, key=lambda k: -keys[k])[:5]
        ex = ", ".join(f"{k}: {got[k]}/{keys[k]}" for k in top)
        found = sum(1 for k in keys if got[k])
        print(f"| {fam} | {len(keys)} | {found} | {same} | {near} | {len(lower)} | {ex} |")
        diffs.append(
            f"{fam}: " + ", ".join(f"{k} {got[k]}/{n}" for k, n in sorted(keys.items()) if got[k] != n)
        )
    print("\nkeys whose document count differs (ours/measured):\n" + "\n".join(f"- {d}" for d in diffs))


def follow_check(questions: Path, mentions: pd.DataFrame, ids_by_file: dict[str, list]) -> None:
    """For each follow question: is its ``via`` id mentioned on every start/linked evidence page,
    is a target document's identity that id, and how many other pages mention it."""
    import json

    print("\n## Follow questions: the via id on the evidence pages\n")
    print("| question | via | canonical | start/linked pages with the id | target identity | other pages |")
    print("|---|---|---|---|---|---|")
    for line in questions.read_text(encoding="utf-8").splitlines():
        q = json.loads(line)
        if q.get("route") != "follow" or not q.get("via"):
            continue
        ident = normalize(q["via"])
        key = ident.canonical if ident else None
        pages = set(
            zip(
                mentions.loc[mentions["ident_id"] == key, "file"],
                mentions.loc[mentions["ident_id"] == key, "page"],
                strict=True,
            )
        )
        ev = [e for e in q["evidence"] if e.get("role") in ("start", "linked")]
        hit = sum((e["doc"], e["page"]) in pages for e in ev)
        targets = [e for e in q["evidence"] if e.get("role") == "target"]
        tgt = sum(any(i.canonical == key for i in ids_by_file.get(e["doc"], [])) for e in targets)
        others = len(pages - {(e["doc"], e["page"]) for e in q["evidence"]})
        tg = f"{tgt}/{len(targets)}" if targets else "-"
        print(f"| {q['id']} | {q['via']} | {key} | {hit}/{len(ev)} | {tg} | {others} |")


def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", s)).strip()


def recall(pdf_dir: Path, tool: Path, ids_by_file: dict[str, list]) -> None:
    """Share of the measuring script's mentions that find_identifiers finds with the same key."""
    import pymupdf

    spec = importlib.util.spec_from_file_location("measure_identifiers", tool)
    mt = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mt)
    regex = {"SP": mt.SP_RE, "FIPS": mt.FIPS_RE, "IR": mt.IR_RE, "CSF_NAME": mt.CSF_NAME_RE,
             "CSF_SUB": mt.CSF_SUB_RE, "CTRL": mt.CTRL_RE, "HIPAA": mt.HIPAA_RE, "REQ171": mt.REQ171_RE}  # fmt: skip
    hit, tot = Counter(), Counter()
    missed: dict[str, Counter] = defaultdict(Counter)
    for p in sorted(pdf_dir.glob("*.pdf")):
        home = [i.canonical for i in ids_by_file.get(p.name, [])]
        with pymupdf.open(p) as doc:
            pages = [_norm(pg.get_text()) for pg in doc]
        named = any(names_series(t) for t in pages)
        for text in pages:
            found = find_identifiers(text, home=home, series_named=named)
            ours = [(m.start, m.end, m.ident.kind, m.ident.canonical) for m in found]
            for fam, rx in regex.items():
                kinds, conv = FAMILY[fam]
                for m in rx.finditer(text):
                    key = _measured_key(fam, m, mt)
                    if fam == "REQ171" and not set(home) & {"SP 800-171", "SP 800-171A"}:
                        continue  # a bare 3.x.y outside SP 800-171 is a section number (identifiers.md 8)
                    tot[fam] += 1
                    want = conv(key)
                    ok = any(
                        s < m.end() and e > m.start() and k in kinds and c == want for s, e, k, c in ours
                    )
                    hit[fam] += ok
                    if not ok:
                        missed[fam][f"{m.group(0).strip()} -> {want}"] += 1
    print("\n## Recall against the measured mentions (measuring regexes of identifiers.md)\n")
    print("| family | measured mentions | found with the same key | recall |")
    print("|---|---|---|---|")
    for fam in regex:
        print(f"| {fam} | {tot[fam]} | {hit[fam]} | {hit[fam] / max(1, tot[fam]):.3f} |")
    print(
        f"| all | {sum(tot.values())} | {sum(hit.values())} | {sum(hit.values()) / max(1, sum(tot.values())):.3f} |"
    )
    for fam, c in missed.items():
        print(f"\nmissed {fam} ({sum(c.values())}): " + "; ".join(f"`{s}` {n}" for s, n in c.most_common(25)))


def _measured_key(fam: str, m: re.Match, mt) -> str:
    if fam == "SP":
        return mt.sp_key(m)[0]
    if fam == "FIPS":
        return f"FIPS {m.group('num')}"
    if fam == "IR":
        return f"IR {m.group('num')}"
    if fam == "CSF_NAME":
        return "CSF"
    if fam == "CSF_SUB":
        return f"{m.group('fn')}.{m.group('cat')}-{m.group('n')}"
    if fam == "CTRL":
        return f"{m.group('fam')}-{int(m.group('n'))}"
    if fam == "HIPAA":
        return m.group("sec") + m.group("par")
    return m.group(0).split("[")[0]


def risky(mentions: pd.DataFrame, ids: dict) -> pd.DataFrame:
    """The mentions a context rule let through: bare SP numbers, requirement ids outside SP
    800-171/171A, a bare "CSF", HIPAA sections without "§"/CFR, exhibits, RFCs, part numbers."""
    own171 = {d for d, idents in ids.items() if {i.canonical for i in idents} & {"SP 800-171", "SP 800-171A"}}
    s = mentions["surface"]
    mask = (
        ((mentions["kind"] == "sp") & s.str.match(r"\d"))
        | ((mentions["kind"] == "requirement") & ~mentions["doc_id"].isin(own171))
        | ((mentions["kind"] == "framework") & (s == "CSF"))
        | ((mentions["kind"] == "cfr") & s.str.match(r"\d{3}\."))
        | mentions["kind"].isin(["exhibit", "rfc", "part_number", "contract", "cve", "control_family"])
    )
    return mentions[mask]


def sample(docs: list, mentions: pd.DataFrame, n: int, seed: int, out: Path) -> None:
    lines = {t.doc_id: t.line_df.set_index(["page", "line"])["text"] for _, t in docs}
    rows = mentions.sample(n=min(n, len(mentions)), random_state=seed).sort_values(["file", "page", "line"])
    with out.open("w", encoding="utf-8") as fh:
        fh.write("n\tfile\tpage\tline\tkind\tident_full\tsurface\tline_text\tverdict\n")
        for i, r in enumerate(rows.itertuples(), 1):
            text = str(lines[r.doc_id].get((r.page, r.line), ""))
            nxt = str(lines[r.doc_id].get((r.page, r.line + 1), ""))
            ctx = (text + " | " + nxt).replace("\t", " ")
            fh.write(f"{i}\t{r.file}\t{r.page}\t{r.line}\t{r.kind}\t{r.ident_full}\t{r.surface}\t{ctx}\t\n")
    print(f"\nwrote a sample of {len(rows)} mentions (seed {seed}) to {out}", file=sys.stderr)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pdf_dir", type=Path)
    ap.add_argument("--cache", default="artifacts", help="parse cache folder")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument(
        "--measured", type=Path, default=None, help="identifiers.md to compare documents per id with"
    )
    ap.add_argument(
        "--recall", type=Path, default=None, help="measure_identifiers.py: recall against its mentions"
    )
    ap.add_argument("--questions", type=Path, default=None, help="dev_questions.jsonl: check the follow ids")
    ap.add_argument("--sample", type=int, default=0)
    ap.add_argument("--risky", action="store_true", help="sample only mentions let through by a context rule")
    ap.add_argument("--seed", type=int, default=14)
    ap.add_argument("--sample-out", type=Path, default=Path("ident_sample.tsv"))
    a = ap.parse_args()
    if not a.pdf_dir.is_dir():
        print(f"Error: {a.pdf_dir} is not a folder of PDFs", file=sys.stderr)
        return 1
    docs = load(a.pdf_dir, a.cache)
    mentions, ids = census(docs, a.top, a.measured)
    if a.questions:
        follow_check(a.questions, mentions, {name: ids[t.doc_id] for name, t in docs})
    if a.recall:
        recall(a.pdf_dir, a.recall, {name: ids[t.doc_id] for name, t in docs})
    if a.sample:
        pool = risky(mentions, {t.doc_id: ids[t.doc_id] for _, t in docs}) if a.risky else mentions
        print(f"\nsample pool: {len(pool)} mentions ({'risky only' if a.risky else 'all'})")
        sample(docs, pool, a.sample, a.seed, a.sample_out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
