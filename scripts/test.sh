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
# other). The Rust tests' whole output goes to target/test-logs/cargo-test.log
# (printed in full only when they fail), pytest's to the terminal (and its
# counts to target/test-logs/pytest.xml). The last line is the two suites'
# counts summed, `N passed, N failed, N skipped`: CI reads it.
phase_start=$SECONDS
took() { echo "   ($((SECONDS - phase_start)) s)"; phase_start=$SECONDS; }
logs=target/test-logs
mkdir -p "$logs"
cargo_log=$logs/cargo-test.log
pytest_xml=$logs/pytest.xml
rm -f "$cargo_log" "$pytest_xml"

# The extension as README's install builds it (scripts/install.py:
# profile-guided where the machine has rustc's llvm-profdata, plain
# otherwise), so that pytest tests what users run; tests/test_build.py
# checks it against the golden set. A no-op when nothing changed.
echo "== extension up to date (python scripts/install.py) =="
"$python" scripts/install.py --quiet
took

# The whole workspace, hoplab-py included (it has no tests of its own:
# `test = false`), so that cargo resolves features exactly as the
# extension's build does (excluding it used to drop pyo3's proc-macro from
# the graph, which changed `syn`'s features, hence `serde_derive`, `serde`
# and hoplab-sim itself). The tests build plainly in target/; the
# profile-guided extension has its own target folders (target/pgo/).
echo "== cargo test (release): build =="
cargo_status=0
cargo test --release --workspace --no-run || cargo_status=$?
took

pytest_status=0
if [[ -n "${HOPLAB_TEST_SERIAL:-}" ]]; then
    echo "== cargo test (release); output in $cargo_log =="
    if (( cargo_status == 0 )); then
        cargo test --release --workspace >"$cargo_log" 2>&1 || cargo_status=$?
    fi
    took
    echo "== pytest =="
    "$python" -m pytest --junit-xml="$pytest_xml" || pytest_status=$?
    took
else
    echo "== cargo test (release) in the background; output in $cargo_log =="
    cargo_pid=
    if (( cargo_status == 0 )); then
        cargo test --release --workspace >"$cargo_log" 2>&1 &
        cargo_pid=$!
        # Ctrl-C or a failure here must not leave the Rust tests running.
        trap 'kill "$cargo_pid" 2>/dev/null || true' EXIT
    fi
    echo "== pytest =="
    "$python" -m pytest --junit-xml="$pytest_xml" || pytest_status=$?
    if [[ -n "$cargo_pid" ]]; then
        wait "$cargo_pid" || cargo_status=$?
    fi
    trap - EXIT
    took
fi

echo "== summary (the whole cargo output: $cargo_log) =="
if (( cargo_status != 0 )) && [[ -s "$cargo_log" ]]; then
    cat "$cargo_log"
fi
if (( cargo_status != 0 )); then
    echo "cargo test failed (exit status $cargo_status)"
fi
if (( pytest_status != 0 )); then
    echo "pytest failed (exit status $pytest_status)"
fi
# The last line: cargo's and pytest's counts summed (exit status 1 if any failed).
"$python" scripts/test_summary.py "$cargo_log" "$cargo_status" "$pytest_xml" "$pytest_status"
