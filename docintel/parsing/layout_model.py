"""Loading pymupdf.layout's model for docintel: lean (no table-grid model), one-thread ONNX sessions.

``import pymupdf.layout`` builds pymupdf-layout's default model (``DocumentLayoutAnalyzer.get_model()``)
and installs it as ``pymupdf._get_layout``. docintel builds the same model itself, with two
workarounds for pymupdf-layout 2.0: its ONNX sessions take one intra-op thread and keep the CPU
memory arena, and no table-grid model is loaded (docintel reads only the boxes). Measured in
BENCHMARKS.md ("Issue 18A, session 5"): 0.37 -> 0.26 CPU s a page, the same boxes.
"""

from __future__ import annotations

import contextlib


@contextlib.contextmanager
def _one_thread_sessions():
    """ONNX sessions built meanwhile use one intra-op thread. Workaround for pymupdf-layout 2.0,
    whose ``onnx/common_util.make_session`` takes onnxruntime's default (a spinning thread per
    core): one thread halves the CPU of a page (0.70 -> 0.39 s on NIST SP 800-161), and the
    parallelism comes from the worker processes instead."""
    try:
        import onnxruntime as ort
    except ImportError:
        yield
        return
    base = ort.SessionOptions

    def options():
        so = base()
        so.intra_op_num_threads = 1
        so.inter_op_num_threads = 1
        return so

    ort.SessionOptions = options
    try:
        yield
    finally:
        ort.SessionOptions = base


_MODEL_BUILT_HERE: list = []  # the model function _ensure_model built (lean, one-thread sessions)


def _lean_session(model_path, providers=None):
    """An ONNX session as ``pymupdf.layout`` builds it, with one intra-op thread and the CPU memory
    arena kept on (pymupdf-layout 2.0 turns it off so a long-lived process returns memory; a
    page then re-allocates and faults in its ~60 MB feature maps on every run: the image model
    costs ~20% more CPU without the arena; our workers are short-lived forks)."""
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    return ort.InferenceSession(model_path, sess_options=so, providers=providers)


@contextlib.contextmanager
def _lean_build(gnn_module):
    """While the model is built: its sessions are :func:`_lean_session`, and no table-grid model is
    loaded. docintel reads only the boxes (``layout_information``); the grid model runs on every
    table box to fill ``group["table_grid"]``, which ``predict`` never returns as boxes (~20% of a
    page's CPU, ~0.3 s to load). An attribute this pymupdf-layout does not have is left alone."""
    patches = {"make_session": _lean_session, "TableGridExtractorV2": lambda *a, **k: None}
    saved = {name: getattr(gnn_module, name) for name in patches if hasattr(gnn_module, name)}
    for name in saved:
        setattr(gnn_module, name, patches[name])
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(gnn_module, name, value)


def _placeholder_layout(*args, **kwargs):  # never called: makes the import's activate() a no-op
    return []


def _build_model():
    """The layout function: pymupdf.layout's default model (``DocumentLayoutAnalyzer.get_model()``,
    as its ``activate`` builds it), built lean (:func:`_lean_build`)."""
    import pymupdf

    pymupdf._get_layout = _placeholder_layout  # `import pymupdf.layout` activates unless one is set
    try:
        with _one_thread_sessions():
            import pymupdf.layout  # noqa: F401
            from pymupdf.layout import DocumentLayoutAnalyzer
            from pymupdf.layout.onnx import BoxRFDGNN as gnn

            with _lean_build(gnn):
                model = DocumentLayoutAnalyzer.get_model()
    finally:
        if pymupdf._get_layout is _placeholder_layout:
            pymupdf._get_layout = None
    inner = getattr(model, "_model", None)
    if getattr(inner, "table_grid_extractor", None) is not None:  # built by an unknown class name
        inner.table_grid_extractor = None

    def _get_layout(*args, **kwargs):
        return model.predict(*args, **kwargs)

    _get_layout.model = model
    return _get_layout


def _ensure_model() -> None:
    """Load the layout model once per process (lean, :func:`_build_model`), unless one is set."""
    import pymupdf

    if callable(getattr(pymupdf, "_get_layout", None)):
        return
    fn = _build_model()
    pymupdf._get_layout = fn
    _MODEL_BUILT_HERE[:] = [fn]


def ensure_model_quietly() -> None:
    """:func:`_ensure_model`, a failure left to each page (which then keeps the fast parse)."""
    with contextlib.suppress(Exception):
        _ensure_model()


def model_forks() -> bool:
    """Whether a forked child can use this process's model as is: sessions built with one thread
    run in the calling thread, so a fork loses nothing; a model with onnxruntime's thread pools
    (imported by the user before docintel loaded it) would run in the child without them."""
    import pymupdf

    fn = getattr(pymupdf, "_get_layout", None)
    return callable(fn) and bool(_MODEL_BUILT_HERE) and fn is _MODEL_BUILT_HERE[0]


def fresh_model() -> None:
    """Build this process's own layout model, unless the inherited one forks safely."""
    import pymupdf

    if model_forks():
        return
    with contextlib.suppress(AttributeError):
        pymupdf._get_layout = None
    _ensure_model()
