"""Output paths checked before any run starts.

A sweep or a reproduction runs for minutes and then writes; a path it
cannot write (a file where a directory should be, a read-only place, a
missing parent that cannot be made) must be found before the first run,
not after the last. `check_output_dir` proves a directory can be made and
written by doing it, then removes everything it made, so a refused
command leaves nothing behind; `check_output_file` does the same for one
file (a packet trace) in a directory that must exist.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

__all__ = ["OutputPathError", "check_output_dir", "check_output_file"]


class OutputPathError(ValueError):
    """An output directory or file that cannot be used. `.key` names the
    option or argument (`--out`, `--store`, `store`, `out`, `--pcap`, `pcap`); the message is
    "<key>: <path>: <what is wrong>"."""

    def __init__(self, key: str, path: str | os.PathLike[str], problem: str) -> None:
        super().__init__(f"{key}: {str(path)!r}: {problem}")
        self.key = key
        self.path = Path(path)


def _reason(error: OSError) -> str:
    return (error.strerror or type(error).__name__).lower()


def check_output_dir(path: str | os.PathLike[str], key: str, subdirs: Iterable[str] = ()) -> None:
    """Raise OutputPathError unless `path` is, or can be made, a directory
    this process can write into, and each of `subdirs` (relative to it) is a
    directory or does not exist yet. Nothing is left behind: directories
    made to prove it are removed again."""
    target = Path(path)
    if target.exists() and not target.is_dir():
        raise OutputPathError(key, path, "is a file, not a directory")
    if not target.exists():
        # The nearest existing ancestor must be a directory (else makedirs
        # would say "not a directory" about a path the user did not give).
        ancestor = target.absolute().parent
        while not ancestor.exists():
            ancestor = ancestor.parent
        if not ancestor.is_dir():
            raise OutputPathError(key, path, f"cannot create it: {str(ancestor)!r} is a file, not a directory")
    for sub in subdirs:
        inner = target / sub
        if inner.exists() and not inner.is_dir():
            raise OutputPathError(key, path, f"{str(inner)!r} is a file where a directory belongs")
    existed = target.exists()
    made: list[Path] = []
    try:
        missing = []
        step = target.absolute()
        while not step.exists():
            missing.append(step)
            step = step.parent
        for directory in reversed(missing):
            directory.mkdir()
            made.append(directory)
        handle, probe = tempfile.mkstemp(dir=target, prefix=".hoplab-write-check-")
        os.close(handle)
        os.unlink(probe)
    except OSError as e:
        verb = "cannot write into it" if existed else "cannot create it"
        raise OutputPathError(key, path, f"{verb}: {_reason(e)}") from None
    finally:
        for directory in reversed(made):
            try:
                directory.rmdir()
            except OSError:  # someone else wrote into it meanwhile: theirs now
                pass


def check_output_file(path: str | os.PathLike[str], key: str) -> None:
    """Raise OutputPathError unless a file can be written at `path`: not a
    directory, in a directory that exists and that this process can write
    into (proved by making and removing a file there; `path` itself is not
    touched)."""
    target = Path(path)
    if str(path) == "" or target.name in ("", ".", ".."):
        raise OutputPathError(key, path, "names no file")
    if target.is_dir():
        raise OutputPathError(key, path, "is a directory, not a file")
    parent = target.absolute().parent
    if not parent.exists():
        raise OutputPathError(key, path, f"its directory {str(target.parent)!r} does not exist")
    if not parent.is_dir():
        raise OutputPathError(key, path, f"{str(target.parent)!r} is a file, not a directory")
    try:
        handle, probe = tempfile.mkstemp(dir=parent, prefix=".hoplab-write-check-")
        os.close(handle)
        os.unlink(probe)
    except OSError as e:
        raise OutputPathError(key, path, f"cannot write into its directory: {_reason(e)}") from None
