"""The notebooks run top to bottom with the offline backend, and are committed without outputs.

Each notebook is executed by nbclient in a kernel started from *this* interpreter
(a kernelspec written to a temp folder, so neither a user's nor the system's
``python3`` kernel is picked up by accident), with ``DOCINTEL_BACKEND=offline``.
A cell that raises fails the test and names the cell.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
NOTEBOOK_DIR = REPO / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
CELL_TIMEOUT = 300  # seconds; generous for a cold CI machine, not an assertion on speed


def test_notebooks_are_present():
    names = {p.name for p in NOTEBOOKS}
    assert {"01_parse_tables.ipynb", "02_reference_loop.ipynb"} <= names


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_committed_without_outputs(path: Path):
    """Outputs are stripped in git (scripts/strip_notebooks.py): no outputs, no execution counts."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    dirty = [
        i
        for i, cell in enumerate(nb["cells"])
        if cell["cell_type"] == "code" and (cell.get("outputs") or cell.get("execution_count") is not None)
    ]
    assert not dirty, f"{path.name}: cells {dirty} keep outputs; run python scripts/strip_notebooks.py"


def _kernel_manager(tmp_path: Path, env: dict[str, str]):
    """A kernel manager whose only kernelspec runs ipykernel under sys.executable with ``env``."""
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import KernelManager

    spec_dir = tmp_path / "kernels" / "docintel-test"
    spec_dir.mkdir(parents=True)
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "docintel test kernel",
        "language": "python",
        "env": env,
    }
    (spec_dir / "kernel.json").write_text(json.dumps(spec), encoding="utf-8")
    ksm = KernelSpecManager(kernel_dirs=[str(tmp_path / "kernels")], ensure_native_kernel=False)
    # The connection file in the temp folder too: a CI home directory may be read-only.
    return KernelManager(
        kernel_name="docintel-test",
        kernel_spec_manager=ksm,
        connection_file=str(tmp_path / "kernel-connection.json"),
    )


@pytest.fixture(scope="module")
def artifacts_dir(tmp_path_factory) -> Path:
    """One parse cache for every notebook run of this module: each PDF is parsed once."""
    return tmp_path_factory.mktemp("notebook-artifacts")


def run_notebook(path: Path, tmp_path: Path, artifacts: Path, extra_env: dict[str, str] | None = None):
    """Execute ``path`` from the notebooks folder (as Jupyter would); return the executed notebook."""
    nbclient = pytest.importorskip(
        "nbclient", reason="notebook tests need nbclient: pip install -e '.[notebooks]'"
    )
    import nbformat

    try:
        import ipykernel  # noqa: F401
    except ImportError:
        pytest.fail("nbclient is installed but ipykernel is not: pip install -e '.[notebooks]'")
    env = {
        "DOCINTEL_BACKEND": "offline",
        "DOCINTEL_ARTIFACTS": str(artifacts),  # nothing lands in the repo, whatever a cell does
        "PYTHONHASHSEED": "0",
        **(extra_env or {}),
    }
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb,
        km=_kernel_manager(tmp_path, env),
        timeout=CELL_TIMEOUT,
        allow_errors=False,
        resources={"metadata": {"path": str(path.parent)}},
    )
    try:
        client.execute()
    except nbclient.exceptions.CellExecutionError as exc:
        pytest.fail(f"{path.name}: a cell failed\n{exc}")
    return nb


def _text_outputs(nb) -> str:
    out = []
    for cell in nb.cells:
        for o in cell.get("outputs", []):
            if o.get("output_type") == "stream":
                out.append(o.get("text", ""))
            elif "data" in o:
                out.append(o["data"].get("text/plain", ""))
    return "\n".join(out)


def _files_in_repo_outputs() -> set[str]:
    """Files where a careless notebook would write: beside the notebooks and in ./artifacts."""
    found = set()
    for folder in (NOTEBOOK_DIR, REPO / "artifacts"):
        if folder.exists():
            found |= {str(p.relative_to(REPO)) for p in folder.rglob("*") if p.is_file()}
    return {f for f in found if ".ipynb_checkpoints" not in f and "__pycache__" not in f}


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_offline(path: Path, tmp_path: Path, artifacts_dir: Path):
    before = _files_in_repo_outputs()
    nb = run_notebook(path, tmp_path, artifacts_dir)
    text = _text_outputs(nb)
    assert "Traceback" not in text
    if "attention_1706.03762v7.pdf" in text and path.stem.startswith("02"):
        # The article's example: the numbers of Table 3 row (E) reach the answer through the reference.
        assert "resolve_references" in text and "via 'Table 3 row (E)'" in text
        assert "4.92" in text and "25.7" in text
    new_files = _files_in_repo_outputs() - before
    assert not new_files, f"{path.name} wrote into the repository: {sorted(new_files)}"


@pytest.mark.slow
def test_reference_loop_notebook_falls_back_to_the_bundled_pdf(tmp_path: Path, artifacts_dir: Path):
    """Without the shared Attention paper, 02 runs on the bundled NIST PDF and still loops once."""
    path = NOTEBOOK_DIR / "02_reference_loop.ipynb"
    nb = run_notebook(path, tmp_path, artifacts_dir, {"DOCINTEL_SHARED": str(tmp_path / "no-shared-here")})
    text = _text_outputs(nb)
    assert "nist_sp800-106.pdf" in text
    assert "resolve_references" in text and "return_to_user" in text
