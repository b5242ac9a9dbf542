#!/usr/bin/env bash
# Every test of hoplab: the simulator core (cargo, release build) and the
# Python package, CLI and bindings (pytest). README and .ci/run both call
# this script, so they cannot drift.
#
# Run it after the install of README.md; it uses the active virtualenv, or
# ./.venv when none is active. It first brings the installed extension up to
# date with the Rust sources (a no-op when nothing changed), so pytest always
# tests the code in this tree.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ -n "${VIRTUAL_ENV:-}" ]]; then
    python="$VIRTUAL_ENV/bin/python"
elif [[ -x .venv/bin/python ]]; then
    python=.venv/bin/python
else
    python=python3
fi

# The whole workspace, hoplab-py included (it has no tests of its own:
# `test = false`), so that cargo resolves features exactly as the
# extension's build does. Excluding it used to drop pyo3's proc-macro from
# the graph, which changed `syn`'s features, hence `serde_derive`, `serde`
# and hoplab-sim itself: the core was compiled twice, once for the tests
# and once for the extension. Now the tests link the very hoplab-sim the
# extension was built with, and the maturin step below finds it fresh.
echo "== cargo test (release) =="
cargo test --release --workspace

echo "== extension up to date (pip install -e ., release build) =="
"$python" -m pip install --quiet --disable-pip-version-check --no-build-isolation --no-deps -e .

echo "== pytest =="
"$python" -m pytest
