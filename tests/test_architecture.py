"""The layout is the architecture: walk every import (module level and inside functions) and
enforce the brick rules.

- The kernel (``schema/``, ``errors``, ``settings``, ``text``, ``refscan``, the identifier kernel
  ``identifiers/`` and the reference grammar ``parsing/refpatterns``) imports only the kernel.
- A brick (``parsing/``, ``questions/``, ``retrieval/``, ``generation/``) imports only the
  kernel and itself.
- ``decide`` is the one composer of bricks (a package: its submodules are its parts, imported by
  it alone); ``api.py`` sits on it; the output packages
  (``report/``, ``evaluation``, ``export/``, ``sql``, ``cli/``) sit on the API. Nothing imports upward.
- No import cycles between modules, whatever the layer.
- ``schema/`` imports without pandas or pyarrow.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "docintel"

#: The reference grammar is kernel: ``parsing/refpatterns`` and the ``parsing/ref*`` modules it is
#: built from (they stay in parsing/ so that the parse cache's code fingerprint covers them).
GRAMMAR = tuple(f"docintel.parsing.{p.stem}" for p in sorted((PKG / "parsing").glob("ref*.py")))
KERNEL = ("docintel", "docintel.errors", "docintel.settings", "docintel.text", "docintel.refscan",
          "docintel.atomic", "docintel.identifiers",
          "docintel.schema", *GRAMMAR)  # fmt: skip
BRICKS = ("docintel.parsing", "docintel.questions", "docintel.retrieval", "docintel.generation")
#: Layers above the bricks, lowest first; a module may import its own layer's package and below.
UPPER = (
    ("docintel.decide",),
    ("docintel.api",),
    ("docintel.report", "docintel.evaluation", "docintel.export", "docintel.sql"),
    ("docintel.cli", "docintel.__main__"),
)
#: Other corpus-level packages (docintel/corpus/) sit beside the API and are checked when present.
OPTIONAL_UPPER = ("docintel.corpus",)


def _modules() -> dict[str, Path]:
    out = {}
    for path in PKG.rglob("*.py"):
        rel = path.relative_to(PKG.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _resolve(name: str) -> str | None:
    """The docintel module an imported name refers to (a package's ``__init__`` counts)."""
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


def imports_of(module: str) -> set[str]:
    """Every docintel module ``module`` imports, anywhere in its body (TYPE_CHECKING too)."""
    tree = ast.parse(MODULES[module].read_text())
    is_pkg = MODULES[module].name == "__init__.py"
    base = module if is_pkg else module.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                root = base.split(".")
                root = root[: len(root) - node.level + 1]
                mod = ".".join([*root, node.module] if node.module else root)
            else:
                mod = node.module or ""
            # "from a.b import c" imports the module a.b.c when there is one, else a name of a.b
            names = [f"{mod}.{a.name}" if f"{mod}.{a.name}" in MODULES else mod for a in node.names]
        else:
            continue
        for n in names:
            if n.startswith("docintel"):
                target = _resolve(n)
                if target and target != module:
                    out.add(target)
    return out


GRAPH = {m: imports_of(m) for m in MODULES}


def _in(module: str, prefixes) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def layer(module: str) -> tuple[int, str]:
    """(rank, group) of a module: kernel 0, bricks 1, then the upper layers."""
    if _in(module, KERNEL[1:]) or module == "docintel":
        return 0, "kernel"
    for b in BRICKS:
        if _in(module, (b,)):
            return 1, b
    for rank, group in enumerate(UPPER, start=2):
        if _in(module, group):
            return rank, group[0]
    if _in(module, OPTIONAL_UPPER):
        return 3, "docintel.corpus"
    return 1, module  # a loose module is a brick of its own


def violations() -> list[str]:
    bad = []
    for mod, targets in GRAPH.items():
        rank, group = layer(mod)
        for t in sorted(targets):
            if mod == "docintel" or t == "docintel":
                continue  # the package root: lazy re-exports only
            trank, tgroup = layer(t)
            if trank == 0:
                continue
            if rank == 0:
                bad.append(f"kernel {mod} imports {t}")
            elif rank == 1 and tgroup != group:
                bad.append(f"brick {mod} imports another brick: {t}")
            elif trank > rank:
                bad.append(f"{mod} imports upward: {t}")
    return bad


def cycles() -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in GRAPH.get(v, ()):
            if w == "docintel" or v == "docintel":
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in GRAPH:
        if v not in index:
            visit(v)
    return out


def test_the_walker_sees_imports_inside_functions():
    assert "docintel.parsing" in GRAPH["docintel.api"]  # api.parse imports parsing lazily
    assert "docintel.decide" in GRAPH["docintel.api"]


def test_no_brick_imports_upward_or_sideways():
    assert violations() == []


def test_no_import_cycles():
    assert cycles() == []


def test_decide_is_the_only_module_below_the_api_that_composes_bricks():
    composers = {
        m
        for m, targets in GRAPH.items()
        if layer(m)[0] <= 2 and len({layer(t)[1] for t in targets if layer(t)[0] == 1} - {layer(m)[1]}) >= 2
    }
    assert "docintel.decide" in composers
    assert all(_in(m, ("docintel.decide",)) for m in composers), composers  # decide or its parts


def test_decides_parts_are_imported_by_decide_alone():
    """decide's submodules compose for it: another module importing one would be a second composer."""
    parts = {m for m in MODULES if m.startswith("docintel.decide.")}
    assert parts  # (decide is a package)
    for m, targets in GRAPH.items():
        if not _in(m, ("docintel.decide",)):
            assert not parts & targets, m


@pytest.mark.parametrize("blocked", ["pandas", "pyarrow"])
def test_schema_imports_without_pandas_or_pyarrow(blocked):
    code = (
        f"import sys; sys.modules[{blocked!r}] = None\n"
        "import docintel.schema as s\n"
        "from docintel.schema import kinds, loop, result, answer, evidence, trace, tables\n"
        "assert s.AskResult and s.Generation and tables.TABLES['line_df'].column_names\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=PKG.parent)
    assert done.returncode == 0, done.stderr[-2000:]
