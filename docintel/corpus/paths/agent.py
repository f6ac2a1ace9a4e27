"""The agent path's entry in :data:`docintel.corpus.paths.PATHS`.

It needs a tool-capable model (``model=`` an AgentModel, or a generation backend of kind
``model`` with a structured call). Without one it does not pretend: the question goes to the
follow path (search when follow is not registered), and the answer says so in ``warnings``,
``route`` and ``agent_fallback``.
"""

from __future__ import annotations


def available(backend=None, model=None) -> bool:
    """Whether the agent path can run (what the router's ``agent_available`` should be)."""
    from docintel.corpus.agent.model import tool_capable

    return model is not None or tool_capable(backend)


def run(corpus, question: str, user: str | None, *, backend=None, top_k: int | None = None,
        model=None, limits=None) -> dict:  # fmt: skip
    from docintel.corpus import agent

    if model is None and agent.tool_capable(backend):
        model = agent.BackendModel(backend)
    if model is None:
        name, fallback = _fallback()
        why = (f"agent path needs a tool-capable model (backend {getattr(backend, 'name', 'offline')!r} "
               f"is not one): answered by the {name} path")  # fmt: skip
        out = fallback(corpus, question, user, backend=backend, top_k=top_k)
        out.setdefault("warnings", []).append(why)
        out["agent_fallback"] = {"path": name, "reason": why}
        return out
    return agent.answer(corpus, question, user, model, limits)


def _fallback():
    """(name, run) of the follow path when it is on this install, else the search path (not
    through PATHS: that package imports this module)."""
    import importlib

    try:
        return "follow", importlib.import_module("docintel.corpus.paths.follow").run
    except ImportError:
        from docintel.corpus.paths.search import run

        return "search", run
