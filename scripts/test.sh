#!/usr/bin/env bash
# Every test of hoplab: the simulator core (cargo, release build) and the
# Python package, CLI and bindings (pytest). README and .ci/run both call
# this script, so they cannot drift.
#
# Run it after the install of README.md; it uses the active virtualenv, or
# ./.venv when none is active. It first brings the installed extension up to
# date with the Rust sources (a no-op when nothing changed), so pytest always
# tests the code in this tree. Exit status: 0 when every test passed.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ -n "${VIRTUAL_ENV:-}" ]]; then
    python="$VIRTUAL_ENV/bin/python"
elif [[ -x .venv/bin/python ]]; then
    python=.venv/bin/python
else
    python=python3
fi

# Phases, with their times: the extension first (pytest needs it; a no-op
# when nothing changed), then the Rust tests' build, then the Rust tests and
# pytest side by side. Each uses about one of the two cores of the machine
# this project is measured on, so together they take the time of the longer
# one instead of the sum (HOPLAB_TEST_SERIAL=1 runs them one after the
# other). The Rust tests' output is kept in a file and printed after
# pytest's, so the two never interleave.
phase_start=$SECONDS
took() { echo "   ($((SECONDS - phase_start)) s)"; phase_start=$SECONDS; }

echo "== extension up to date (pip install -e ., release build) =="
"$python" -m pip install --quiet --disable-pip-version-check --no-build-isolation --no-deps -e .
took

# The whole workspace, hoplab-py included (it has no tests of its own:
# `test = false`), so that cargo resolves features exactly as the
# extension's build does. Excluding it used to drop pyo3's proc-macro from
# the graph, which changed `syn`'s features, hence `serde_derive`, `serde`
# and hoplab-sim itself: the core was compiled twice, once for the tests
# and once for the extension. Now the tests link the very hoplab-sim the
# extension was built with.
echo "== cargo test (release): build =="
cargo test --release --workspace --no-run
took

if [[ -n "${HOPLAB_TEST_SERIAL:-}" ]]; then
    echo "== cargo test (release) =="
    cargo test --release --workspace
    took
    echo "== pytest =="
    "$python" -m pytest
    took
    exit 0
fi

echo "== cargo test (release) in the background; its output follows pytest's =="
cargo_log=$(mktemp)
cargo test --release --workspace >"$cargo_log" 2>&1 &
cargo_pid=$!
# Ctrl-C or a failure here must not leave the Rust tests running.
trap 'kill "$cargo_pid" 2>/dev/null || true; rm -f "$cargo_log"' EXIT

echo "== pytest =="
pytest_status=0
"$python" -m pytest || pytest_status=$?
cargo_status=0
wait "$cargo_pid" || cargo_status=$?
echo "== cargo test (release): output =="
cat "$cargo_log"
took
if (( cargo_status != 0 )); then
    echo "cargo test failed (exit status $cargo_status)" >&2
fi
if (( pytest_status != 0 )); then
    echo "pytest failed (exit status $pytest_status)" >&2
fi
if (( cargo_status != 0 || pytest_status != 0 )); then
    exit 1
fi
