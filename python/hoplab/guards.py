"""Guards on what the scenario reader takes, before it parses anything.

A scenario file is a few kilobytes; the reader must not be the way to
exhaust memory or time. Each bound is stated in docs/limits.md
("Scenario files"); each refusal is a ScenarioError, one line, within a
second, naming what to change:

- the file must be a regular file (a FIFO would block forever, `/dev/zero`
  would be read until memory runs out);
- at most `max_scenario_bytes()` bytes (512 KiB, about 0.5 s of parsing at
  the worst on this project's machine; `HOPLAB_MAX_SCENARIO_BYTES` lifts
  it): the bound on huge arrays too, since each element takes at least two
  bytes;
- tables and arrays nested at most `MAX_DEPTH` levels deep (no scenario key
  is deeper than 6; Python's parser and the core's JSON reader would fail
  with a recursion error past a few hundred);
- a `--set` / `--vary` key of at most `MAX_KEY_CHARS` characters.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from typing import Any

from hoplab._core import ScenarioError

__all__ = ["DEFAULT_MAX_SCENARIO_BYTES", "MAX_DEPTH", "MAX_KEY_CHARS", "check_depth", "check_key_length", "check_text_size",
           "max_scenario_bytes", "read_scenario_text"]

#: The largest scenario file read unless `HOPLAB_MAX_SCENARIO_BYTES` says otherwise.
DEFAULT_MAX_SCENARIO_BYTES = 512 * 1024
#: How deep tables and arrays may nest in a scenario.
MAX_DEPTH = 32
#: The longest dotted key `--set` and `--vary` take.
MAX_KEY_CHARS = 256

_ENV = "HOPLAB_MAX_SCENARIO_BYTES"


def _error(key: str, message: str) -> ScenarioError:
    error = ScenarioError(f"{key}: {message}" if key else message)
    error.key = key
    return error


def max_scenario_bytes() -> int:
    """The size bound on scenario files: `HOPLAB_MAX_SCENARIO_BYTES` (bytes,
    a positive integer) or 512 KiB."""
    text = os.environ.get(_ENV, "").strip()
    if not text:
        return DEFAULT_MAX_SCENARIO_BYTES
    if not text.isdigit() or int(text) < 1:
        raise _error(_ENV, f"must be a positive number of bytes, got {text[:40]!r}")
    return int(text)


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory")):
        if test(mode):
            return name
    return "not a regular file"


def read_scenario_text(path: str | os.PathLike[str]) -> str:
    """The text of scenario file `path`: a regular file of at most
    `max_scenario_bytes()`, UTF-8 (OSError if it cannot be opened,
    UnicodeDecodeError if it is not text, ScenarioError otherwise)."""
    limit = max_scenario_bytes()
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    info = os.stat(path)  # through links; never opens a FIFO (it would block)
    if stat.S_ISDIR(info.st_mode):
        raise IsADirectoryError(21, "Is a directory", os.fspath(path))
    if not stat.S_ISREG(info.st_mode):
        raise _error("", f"scenario file {os.fspath(path)!r}: is {_kind(info.st_mode)}, not a regular file "
                         "(give a .toml file)")
    fd = os.open(path, flags)
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):  # swapped since the stat
            raise _error("", f"scenario file {os.fspath(path)!r}: not a regular file (give a .toml file)")
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise _error("", f"scenario file {os.fspath(path)!r}: larger than {limit:,} bytes, the most a scenario "
                         f"file may have (set {_ENV}=BYTES to read larger ones; docs/limits.md)")
    return data.decode("utf-8")


def check_text_size(text: str, source: str = "scenario") -> None:
    """The size bound on scenario text given as a string (`Scenario.from_toml`)."""
    limit = max_scenario_bytes()
    if len(text) > limit:
        raise _error("", f"{source}: larger than {limit:,} bytes, the most a scenario may have "
                         f"(set {_ENV}=BYTES to read larger ones; docs/limits.md)")


def check_depth(data: Any, key: str = "", start: int = 0) -> None:
    """Raise ScenarioError unless tables and arrays in `data` nest at most
    MAX_DEPTH levels (counting `start` levels above it). Iterative: any
    depth is measured without recursion."""
    stack: list[tuple[Any, int]] = [(data, start)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, Mapping):
            children: Any = value.values()
        elif isinstance(value, (list, tuple)):
            children = value
        else:
            continue
        if depth + 1 > MAX_DEPTH:
            raise _error(key, f"tables and arrays nested deeper than {MAX_DEPTH} levels (no scenario key is "
                              "deeper than 6; docs/limits.md)")
        stack.extend((child, depth + 1) for child in children if isinstance(child, (Mapping, list, tuple)))


def check_key_length(key: str) -> None:
    """Raise ScenarioError unless `key` has at most MAX_KEY_CHARS characters."""
    if len(key) > MAX_KEY_CHARS:
        raise _error(key[:40] + "...", f"a key of {len(key):,} characters; keys have at most {MAX_KEY_CHARS} "
                                      "(e.g. flows.0.rate_kbps; docs/limits.md)")
