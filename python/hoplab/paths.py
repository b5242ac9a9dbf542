"""Output paths checked before any run starts.

A sweep or a reproduction runs for minutes and then writes; a path it
cannot write (a file where a directory should be, a read-only place, a
missing parent that cannot be made) must be found before the first run,
not after the last. `check_output_dir` proves a directory can be made and
written by doing it, then removes everything it made, so a refused
command leaves nothing behind; `check_output_file` does the same for one
file (a packet trace) in a directory that must exist.

Every file the package writes (reports, figures and their CSV, the store's
Parquet files) goes through `write_file`: a regular file (or nothing yet)
at the target is replaced atomically by a temporary file created
exclusively (`O_CREAT | O_EXCL | O_NOFOLLOW`, an unguessable name carrying
the writer's pid) in the target's own folder; a FIFO or a device there is
written through, never replaced; a symbolic link is followed to what it
names (a dangling one is refused). `remove_stale_temporaries` removes the
temporaries a killed writer left (their pid is gone) at the next start.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import BinaryIO

__all__ = ["OutputPathError", "check_output_dir", "check_output_file", "process_alive", "remove_stale_temporaries", "write_file"]


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


def _dangling(path: Path) -> str | None:
    """'is a dangling symbolic link ...' if `path` is a link to nothing."""
    if os.path.islink(path) and not path.exists():
        return f"{str(path)!r} is a dangling symbolic link (to {os.readlink(path)!r})"
    return None


def _check_missing_chain(target: Path, key: str, path: str | os.PathLike[str]) -> None:
    """The folders `path` needs that do not exist: a dangling link or a
    missing folder before a '..' is named (makedirs cannot make either)."""
    step = target.absolute()
    while not step.exists():
        problem = _dangling(step)
        if problem:
            raise OutputPathError(key, path, f"cannot create it: {problem}")
        if step.name == "..":
            missing = step.parent
            while not missing.parent.exists():
                missing = missing.parent
            raise OutputPathError(key, path, f"cannot create it: its folder {str(missing)!r} does not exist "
                                             "(a path through '..' needs every folder on the way)")
        step = step.parent


def check_output_dir(path: str | os.PathLike[str], key: str, subdirs: Iterable[str] = ()) -> None:
    """Raise OutputPathError unless `path` is, or can be made, a directory
    this process can write into, and each of `subdirs` (relative to it) is a
    directory or does not exist yet. Nothing is left behind: directories
    made to prove it are removed again."""
    target = Path(path)
    if target.exists() and not target.is_dir():
        raise OutputPathError(key, path, "is a file, not a directory")
    _check_missing_chain(target, key, path)
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
    for attempt in range(_RACE_ATTEMPTS):
        try:
            _make_and_probe(target)
            return
        except (FileExistsError, FileNotFoundError) as e:
            # Another process made or removed a folder of the path between
            # our look and our step (two sweeps started at once on one new
            # store): look again, then say what failed.
            if attempt + 1 < _RACE_ATTEMPTS:
                continue
            error: OSError = e
        except OSError as e:
            error = e
        verb = "cannot write into it" if existed else "cannot create it"
        raise OutputPathError(key, path, f"{verb}: {_reason(error)}") from None


# How often check_output_dir looks again after a folder of its path was made
# or removed by another process while it looked.
_RACE_ATTEMPTS = 5


def _make_and_probe(target: Path) -> None:
    """Make the missing folders up to `target`, prove a file can be written
    there, and remove the folders this call made (OSError otherwise)."""
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
        _probe_write(target)
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
    if _dangling(target):
        raise OutputPathError(key, path, f"is a dangling symbolic link (to {os.readlink(target)!r})")
    if target.exists() and stat.S_ISSOCK(target.stat().st_mode):
        raise OutputPathError(key, path, "is a socket, not a file")
    if target.exists() and not target.is_file():  # a FIFO or a device: written through
        if not os.access(target, os.W_OK):
            raise OutputPathError(key, path, "cannot write into it: permission denied")
        return
    if target.is_symlink():
        target = Path(os.path.realpath(target))
    parent = target.absolute().parent
    if not parent.exists():
        problem = _dangling(parent)
        raise OutputPathError(key, path, problem or f"its directory {str(target.parent)!r} does not exist")
    if not parent.is_dir():
        raise OutputPathError(key, path, f"{str(target.parent)!r} is a file, not a directory")
    try:
        _probe_write(parent)
    except OSError as e:
        raise OutputPathError(key, path, f"cannot write into its directory: {_reason(e)}") from None


def _probe_write(directory: Path) -> None:
    """Make and remove a file in `directory` (OSError if this process cannot).
    tempfile (with shutil, random, bz2, lzma) is imported here, when a path is
    checked, not by `import hoplab` (start-up, docs/performance.md)."""
    import tempfile

    handle, probe = tempfile.mkstemp(dir=directory, prefix=".hoplab-write-check-")
    os.close(handle)
    os.unlink(probe)


def _temporary_name(name: str) -> str:
    import secrets  # here, not at import: with hashlib and random it costs ~5 ms of each command's start-up

    return f".{name}.{os.getpid()}-{secrets.token_hex(8)}.partial"


def _open_exclusive(folder: Path, name: str) -> tuple[int, Path]:
    """A new file in `folder` that no one else made: O_CREAT | O_EXCL (an
    existing file or a planted link at the name is an error, not followed)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    while True:
        temp = folder / _temporary_name(name)
        try:
            return os.open(temp, flags, 0o666), temp
        except FileExistsError:
            continue


def write_file(path: str | os.PathLike[str], write: Callable[[BinaryIO], object], key: str = "path") -> Path:
    """Write a file through `write(handle)`, never replacing what must not be:
    a regular file (or nothing) at `path` is replaced atomically by a
    temporary made exclusively beside it, flushed to disk first; a FIFO or
    a device is written through; a symbolic link is followed (the link
    stays). Raises OutputPathError (naming `key`) for a directory, a socket
    or a dangling link there. Returns the path written."""
    target = Path(path)
    try:
        mode: int | None = os.stat(target).st_mode  # through any links
    except FileNotFoundError:
        if os.path.islink(target):
            raise OutputPathError(key, path, f"is a dangling symbolic link (to {os.readlink(target)!r})") from None
        mode = None
    if mode is not None and stat.S_ISDIR(mode):
        raise OutputPathError(key, path, "is a directory, not a file")
    if mode is not None and stat.S_ISSOCK(mode):
        raise OutputPathError(key, path, "is a socket, not a file")
    special = target.is_absolute() and target.parts[1:2] in (("dev",), ("proc",))  # /dev/stdout, /proc/self/fd/N
    if mode is not None and (not stat.S_ISREG(mode) or special):  # a FIFO, a device, an open file: through it
        with open(target, "r+b" if mode is not None and stat.S_ISREG(mode) else "wb", buffering=1 << 16) as handle:
            write(handle)
        return target
    if os.path.islink(target):  # the link stays; the file it names is replaced
        target = Path(os.path.realpath(target))
    handle_fd, temp = _open_exclusive(target.absolute().parent, target.name)
    try:
        with os.fdopen(handle_fd, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    return target


_TEMPORARY = re.compile(r"^\.(?P<name>.+)\.(?P<pid>\d+)-[0-9a-f]+\.partial$")


def process_alive(pid: int) -> bool:
    """Whether a process `pid` exists (someone else's counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's live process
        return True
    return True


def remove_stale_temporaries(folder: str | os.PathLike[str]) -> int:
    """Remove the temporaries (`.NAME.PID-HEX.partial`, by `write_file` or a
    packet trace) that writers no longer running left in `folder`; regular
    files only. Returns how many."""
    removed = 0
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return 0
    for entry in entries:
        match = _TEMPORARY.match(entry.name)
        if match is None:
            continue
        if int(match["pid"]) == os.getpid() or process_alive(int(match["pid"])):
            continue
        try:
            if entry.is_file(follow_symlinks=False):
                os.unlink(entry.path)
                removed += 1
        except OSError:
            pass
    return removed
