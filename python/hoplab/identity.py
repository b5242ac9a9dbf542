"""A run's identity: `run_id` hashes (version, build, config_hash, seed),
where `config_hash` is the core's hash of the normalised scenario without
its seed and `build` fingerprints the compiled simulator (`hoplab._core`)."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from typing import Any

from hoplab import _core

__all__ = ["build_build_id", "config_hash", "run_identity"]


def config_hash(normalised: Mapping[str, Any]) -> str:
    """The core's config hash of a normalised scenario (`Scenario.validate()`),
    its seed left out: the run report's `config_hash`."""
    return _core.config_hash(json.dumps(dict(normalised), allow_nan=False))


_BUILD_ID: str | None = None


def build_build_id() -> str:
    """A fingerprint of the compiled simulator (SHA-256 of the extension file,
    12 hex digits): rebuilding the core after a change makes new runs."""
    global _BUILD_ID
    if _BUILD_ID is None:
        path = getattr(_core, "__file__", None)
        digest = hashlib.sha256()
        if path and os.path.exists(path):
            with open(path, "rb") as handle:
                for chunk in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(chunk)
        else:  # pragma: no cover - a builtin module
            digest.update(_core.version().encode())
        _BUILD_ID = digest.hexdigest()[:12]
    return _BUILD_ID


def run_identity(version: str, build: str, chash: str, seed: int) -> str:
    """The run id: SHA-256 of "version|build|config_hash|seed", 20 hex digits."""
    return hashlib.sha256(f"{version}|{build}|{chash}|{seed}".encode()).hexdigest()[:20]
