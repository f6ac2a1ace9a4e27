"""Which candidate pages the layout model reads, and running it on them.

The page loop only collects candidates (:func:`docintel.parsing.layout.escalation_reasons`);
once every page is known, :func:`triage` keeps the fast parse of the candidates whose regions
hold no heading-like line (``layout_no_gain: ...``: the model would change line roles there, not
sections or objects), and :func:`choose` picks the rest by expected gain under the document's
budget (so a missed table late in the document is not crowded out by vector pages met first)
and :func:`escalate` runs the model on the chosen pages, in forked worker processes when there
is more than one core. Results are applied in page order, so the tables do not depend on which
worker finished first. Pages the budget skips keep the fast parse and say so in
``page_df.escalation_signals`` (``layout_budget_skipped (N pages): ...``).

Environment: ``DOCINTEL_LAYOUT_BUDGET`` (pages per document), ``DOCINTEL_LAYOUT_WORKERS``
(processes for the model; 1 = in this process; default: the usable cores, at most 4).
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import pickle
import time
from collections.abc import Callable

from docintel.parsing import layout
from docintel.parsing.escalate_stakes import (  # noqa: F401  (re-exported)
    _body_size,
    _cover_pages,
    headings_at_stake,
    stakes_at_pages,
)

log = logging.getLogger(__name__)

#: Layout-model pages per document: max(LAYOUT_BUDGET_MIN, LAYOUT_BUDGET_SHARE x pages).
LAYOUT_BUDGET_SHARE = layout.LAYOUT_BUDGET_SHARE
LAYOUT_BUDGET_MIN = layout.LAYOUT_BUDGET_MIN
#: Expected gain of one model page by reason (its cost is about the same on every page): a
#: table the fast path missed gives table rows and cells, a figure caption with nothing drawn
#: near it a figure region, unreadable text at least its roles; a vector-graphics page is most
#: often a ruled table or a chart whose text the fast lines already hold.
GAIN = {
    "caption_without_structure": 3.0,
    "garbled_text": 2.0,
    "vector_graphics_without_structure": 1.0,
}
#: Seconds a worker may go without finishing a page before its pages keep the fast parse.
WORKER_PAGE_SECONDS = 120.0


def budget_pages(n_pages: int) -> int:
    """The document's layout budget in pages (``DOCINTEL_LAYOUT_BUDGET`` overrides it)."""
    env = os.environ.get("DOCINTEL_LAYOUT_BUDGET", "").strip()
    if env.isdigit():
        return int(env)
    return max(LAYOUT_BUDGET_MIN, math.ceil(LAYOUT_BUDGET_SHARE * n_pages))


def expected_gain(reasons: list[str]) -> float:
    """The best reason's gain, plus a little for each further reason."""
    gains = sorted((GAIN.get(r.split(":")[0], 1.0) for r in reasons), reverse=True)
    return gains[0] + 0.1 * (len(gains) - 1) if gains else 0.0


def choose(
    candidates: dict[int, list[str]], n_pages: int, stakes: dict[int, int] | None = None
) -> tuple[list[int], dict[int, str]]:
    """The pages to escalate (in page order) and the skipped ones with their recorded signals.

    Highest expected gain first: the reasons' gain, times the heading-like lines at stake when
    :func:`triage` counted them (``stakes``; a page it did not count, garbled text, comes first);
    earlier page first among equals. Pages whose only reason is vector graphics take at most
    half the budget, so an unseen table always gets a turn.
    """
    budget = budget_pages(n_pages)

    def gain(p: int) -> float:
        weight = 1.0 if stakes is None else stakes.get(p, math.inf)
        return expected_gain(candidates[p]) * weight

    order = sorted(candidates, key=lambda p: (-gain(p), p))
    chosen: list[int] = []
    vector_only = 0
    skipped: dict[int, str] = {}
    for p in order:
        reasons = candidates[p]
        only_vector = all(r.startswith("vector_graphics") for r in reasons)
        if len(chosen) >= budget or (only_vector and vector_only >= budget // 2):
            skipped[p] = f"layout_budget_skipped ({budget} pages): " + "; ".join(reasons)
            continue
        chosen.append(p)
        vector_only += only_vector
    return sorted(chosen), skipped


def workers_for(n_jobs: int) -> int:
    """Processes to run ``n_jobs`` model pages: 1 (this process) unless cores and jobs allow more."""
    env = os.environ.get("DOCINTEL_LAYOUT_WORKERS", "").strip()
    if env.isdigit():
        wanted = max(int(env), 1)
    else:
        try:
            cores = len(os.sched_getaffinity(0))
        except (AttributeError, OSError):
            cores = os.cpu_count() or 1
        wanted = min(cores, 4)
    if not hasattr(os, "fork"):
        return 1
    return max(1, min(wanted, n_jobs))


Job = tuple[int, list[dict], dict]  # (page_no, fast rows, {"gutters": ..., "cuts": ...})
Outcome = tuple[list[dict], dict, float] | str  # (rows, signals, seconds), or the error message


def _run_one(doc, job: Job) -> Outcome:
    page_no, rows, geo = job
    t0 = time.perf_counter()
    try:
        out, sig = layout.extract_page_lines_layout(
            doc[page_no - 1], page_no, rows, gutters=geo.get("gutters"), cuts=geo.get("cuts")
        )
    except Exception as exc:  # the fast lines are still good
        return str(exc) or type(exc).__name__
    return out, sig, time.perf_counter() - t0


def run_pages(doc, jobs: list[Job], *, tick: Callable[[], None] | None = None) -> dict[int, Outcome]:
    """The model's lines for each job's page ({page_no: outcome}), in a pool when it pays."""
    n = workers_for(len(jobs))
    if n <= 1:
        out = {}
        for job in jobs:
            out[job[0]] = _run_one(doc, job)
            if tick:
                tick()
        return out
    return _run_forked(doc, jobs, n, tick)


def _run_forked(doc, jobs: list[Job], n: int, tick) -> dict[int, Outcome]:
    """``jobs`` dealt round-robin to ``n`` forked workers (bare ``os.fork``, as the parse budget
    does: a Dask worker is daemonic and multiprocessing refuses it children). The workers inherit
    this process's model when it forks safely (:func:`layout.model_forks`), else build their own;
    each sends one pickled outcome per page. A worker that dies or stalls leaves its pages on the fast parse."""
    from multiprocessing.connection import Connection, wait

    # Loaded here once (one-thread sessions fork safely): the workers inherit it, no load each.
    layout.ensure_model_quietly()
    out: dict[int, Outcome] = {}
    conns: dict[Connection, int] = {}
    pending: dict[int, set[int]] = {}
    for w in range(n):
        chunk = jobs[w::n]
        recv_fd, send_fd = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the worker
            code = 1
            try:
                os.close(recv_fd)
                _worker(doc, chunk, Connection(send_fd, readable=False))
                code = 0
            finally:
                os._exit(code)
        os.close(send_fd)
        conns[Connection(recv_fd, writable=False)] = pid
        pending[pid] = {j[0] for j in chunk}
    try:
        while conns:
            ready = wait(list(conns), timeout=WORKER_PAGE_SECONDS)
            if not ready:
                for pid in conns.values():
                    _kill(pid)
                break
            for conn in ready:
                try:
                    page_no, outcome = pickle.loads(conn.recv_bytes())
                except (EOFError, OSError):
                    conn.close()
                    _reap(conns.pop(conn))
                    continue
                out[page_no] = outcome
                pending[conns[conn]].discard(page_no)
                if tick:
                    tick()
    finally:
        for conn, pid in conns.items():
            conn.close()
            _kill(pid)
            _reap(pid)
    for pages in pending.values():
        for p in pages:
            out.setdefault(p, "the layout worker stopped without a result")
    return out


def _worker(doc, chunk: list[Job], conn) -> None:  # pragma: no cover - runs in the worker
    layout.fresh_model()
    for job in chunk:
        conn.send_bytes(pickle.dumps((job[0], _run_one(doc, job)), protocol=pickle.HIGHEST_PROTOCOL))
    conn.close()


def _kill(pid: int) -> None:
    import signal

    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def _reap(pid: int) -> None:
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


def triage(
    doc,
    page_rows: list[list[dict]],
    prows: list[dict],
    cands: dict[int, list[str]],
    by_page: dict[int, int],
    spans: dict | None = None,
) -> tuple[dict[int, str], dict[int, int]]:
    """The candidates the model would not change much ({page: recorded signals}), and for the
    others the heading-like lines at stake ({page: n}: the budget's gain).

    What the model changes on a caption or vector page is line roles, and through them the
    sections: table cells that heading detection reads as headings (BENCHMARKS.md "Issue 18ESC,
    session 6"). So a page with no heading-like line (:func:`headings_at_stake`) inside the regions
    its reasons name (below the caption, the drawings' extent) keeps the fast parse and records
    ``layout_no_gain: ...``. Garbled text, and a page whose regions are unknown, always go to the
    model. ``spans``: the page stage's ``headings.page_spans`` per page (else the page is read).
    """
    out: dict[int, str] = {}
    stakes: dict[int, int] = {}
    todo = [
        p
        for p, reasons in cands.items()
        if not any(r.startswith("garbled_text") for r in reasons)
        and prows[by_page[p]].get("_escalation_regions")
    ]
    if not todo:
        return out, stakes
    # the document's body size and title pages, as the toc stage reads them
    body = _body_size(page_rows)
    cover = _cover_pages(page_rows, prows, body)
    got = stakes_at_pages(
        doc, [(p, page_rows[by_page[p]], prows[by_page[p]]) for p in todo], body, spans, cover
    )
    for p in todo:
        if p not in got:  # the triage failed there: the model then decides, as before
            continue
        if got[p]:
            stakes[p] = got[p]
        else:
            out[p] = "layout_no_gain: " + "; ".join(cands[p])
    return out, stakes


def escalate(
    doc,
    page_rows: list[list[dict]],
    prows: list[dict],
    *,
    mode: str,
    tick: Callable[[], None] | None = None,
    spans: dict | None = None,
) -> None:
    """Run the model on the candidate pages of ``prows`` (private ``_escalate`` key), in place.

    ``auto``: candidates sorted by :func:`triage` (``spans``: the page stage's, so no page is read
    again), then chosen by :func:`choose`; ``always``: every candidate. Each escalated
    page's rows replace its fast rows and its page row records ``parse_method = layout``; a page
    where the model failed keeps the fast parse with ``layout_failed: ...`` in its signals.
    """
    cands = {int(p["page"]): p["_escalate"]["reasons"] for p in prows if p.get("_escalate")}
    if not cands:
        return
    by_page = {int(p["page"]): i for i, p in enumerate(prows)}
    if mode == "always":
        chosen, skipped = sorted(cands), {}
    else:
        kept, stakes = triage(doc, page_rows, prows, cands, by_page, spans)
        for p, text in kept.items():
            prows[by_page[p]]["escalation_signals"] = text
            del cands[p]
        chosen, skipped = choose(cands, len(prows), stakes)
    for p, text in skipped.items():
        prows[by_page[p]]["escalation_signals"] = text
    jobs = []
    for p in chosen:
        i = by_page[p]
        geo = prows[i]["_escalate"]
        jobs.append((p, page_rows[i], {"gutters": geo.get("gutters"), "cuts": geo.get("cuts")}))
    results = run_pages(doc, jobs, tick=tick)
    for p in chosen:
        i = by_page[p]
        prow = prows[i]
        reasons = list(cands[p])
        outcome = results.get(p, "no result")
        if isinstance(outcome, str):
            log.warning("page %d: layout model failed (%s); kept the fast parse", p, outcome)
            reasons.append(f"layout_failed: {outcome}")
        else:
            page_rows[i], lsig, secs = outcome
            prow.update(lsig)
            prow["parse_method"] = "layout"
            prow["parse_seconds"] = float(prow.get("parse_seconds") or 0.0) + secs
        prow["escalation_signals"] = "; ".join(reasons)
