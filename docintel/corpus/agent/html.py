"""The exploration path as an HTML fragment: the tools in order, the evidence each produced, and
a small SVG of the visited nodes (columns by the turn first visited) and edges, by stable id."""

from __future__ import annotations

from html import escape

_COLOR = {"document": "#4e79a7", "block": "#59a14f", "record": "#f28e2b", "identifier": "#b07aa1"}


def path_html(answer: dict) -> str:
    """``answer`` is the agent path's answer object (``turns``, ``exploration``, ``ledger``)."""
    turns = answer.get("turns") or []
    path = answer.get("exploration") or {"nodes": [], "edges": []}
    items = []
    for t in turns:
        what = escape(str(t.get("action", "")))
        args = escape(str(t.get("arguments", "")))
        res = t.get("result") or t.get("error") or ""
        extra = (
            f" &rarr; {escape(str(t.get('item', '')))} ({t.get('rows', 0)} rows)"
            if t.get("result") == "ok"
            else ""
        )
        err = f' <span class="agent-error">{escape(str(t.get("error")))}</span>' if t.get("error") else ""
        items.append(
            f"<li><b>turn {t['turn']}</b> {what} <code>{args}</code>{extra}{err}"
            f" <small>{t.get('seconds', 0):.2f} s, {t.get('tool_calls_so_far', 0)} calls</small>"
            f"<br><i>{escape(str(t.get('thought', '')))}</i> {escape(str(res)) if res != 'ok' else ''}</li>"
        )
    return (
        '<section class="agent-path"><h3>Exploration path</h3>'
        f"<p>{len(turns)} turn(s), stop: {escape(str(answer.get('stop_reason', '')))}</p>"
        f"<ol>{''.join(items)}</ol>{_svg(path)}</section>"
    )


def _svg(path: dict) -> str:
    nodes = path.get("nodes") or []
    if not nodes:
        return "<p>No node visited.</p>"
    cols: dict[int, list[dict]] = {}
    for n in nodes:
        cols.setdefault(int(n.get("first_turn", 1)), []).append(n)
    pos, w, h = {}, 180, 26
    for ci, turn in enumerate(sorted(cols)):
        for ri, n in enumerate(cols[turn]):
            pos[n["id"]] = (20 + ci * w, 20 + ri * h)
    width = 40 + len(cols) * w
    height = 40 + max(len(v) for v in cols.values()) * h
    parts = []
    for e in path.get("edges") or []:
        if e["source"] in pos and e["target"] in pos:
            (x1, y1), (x2, y2) = pos[e["source"]], pos[e["target"]]
            parts.append(
                f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="#999">'
                f"<title>{escape(e['relation'])}</title></line>"
            )
    for n in nodes:
        x, y = pos[n["id"]]
        color = _COLOR.get(n.get("kind", ""), "#777")
        label = escape(str(n.get("label") or n["id"]))[:28]
        parts.append(
            f'<g data-node-id="{escape(n["id"])}"><circle cx="{x}" cy="{y}" r="5" fill="{color}"/>'
            f'<text x="{x + 8}" y="{y + 4}" font-size="11">{label}</text><title>{escape(n["id"])}</title></g>'
        )
    return f'<svg class="agent-graph" width="{width}" height="{height}">{"".join(parts)}</svg>'


def write_path_page(answer: dict, path) -> None:
    """A standalone HTML page: the question, the answer, its evidence and :func:`path_html`."""
    from pathlib import Path

    from docintel.atomic import atomic_write_text

    evidence = "".join(
        f"<li><code>{escape(str(e.get('ledger_item', '')))}</code> "
        f"{escape(str((e.get('document') or {}).get('file') or e.get('doc_id', '')))} "
        f"p{escape(str(e.get('page', '')))}: {escape(str(e.get('text', ''))[:300])}</li>"
        for e in answer.get("evidence") or []
    )
    body = (
        f"<h2>{escape(str(answer.get('question', '')))}</h2><p>{escape(str(answer.get('answer', '')))}</p>"
        f"<h3>Evidence</h3><ol>{evidence}</ol>{path_html(answer)}"
    )
    atomic_write_text(Path(path), f"<!doctype html><meta charset='utf-8'><title>agent path</title>{body}")
