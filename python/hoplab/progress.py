"""A sweep's progress: a rich bar on stderr (done / total, failures, ETA)
or a callback(event, info)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hoplab.campaign import SweepStats

__all__ = ["ProgressCallback", "Reporter"]

ProgressCallback = Callable[[str, Mapping[str, Any]], None]


class Reporter:
    """Progress: a rich bar (done / total, failures, ETA) or a callback."""

    def __init__(self, progress: bool | ProgressCallback, stats: SweepStats) -> None:
        self._callback: ProgressCallback | None = progress if callable(progress) else None
        self._enabled = bool(progress)
        self._stats = stats
        self._progress: Any = None
        self._task: Any = None
        self._shown_failures = 0

    def start(self, total: int, skipped: int) -> None:
        if self._callback is not None:
            self._callback("start", {"total": total, "skipped": skipped})
            return
        if not self._enabled:
            return
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        console = Console(stderr=True)
        # No ETA when every run comes from the store: nothing is left to time.
        remaining = [TextColumn("ETA"), TimeRemainingColumn()] if skipped < total else []
        self._progress = Progress(
            TextColumn("[bold]runs[/bold]"), BarColumn(), MofNCompleteColumn(),
            TextColumn("[red]{task.fields[failed]} failed[/red]"),
            TextColumn("{task.fields[skipped]} from store"),
            TimeElapsedColumn(), *remaining,
            console=console, transient=False,
        )
        self._progress.start()
        self._task = self._progress.add_task("runs", total=total, completed=skipped, failed=0, skipped=skipped)

    def advance(self, ok: bool) -> None:
        if self._callback is not None:
            self._callback("advance", {"ok": ok, "executed": self._stats.executed, "failed": self._stats.failed})
        elif self._progress is not None:
            self._progress.update(self._task, advance=1, failed=self._stats.failed)

    def failure(self, params: Mapping[str, Any], run: int, error: str) -> None:
        if self._callback is not None:
            self._callback("failure", {"params": dict(params), "run": run, "error": error})
            return
        if self._progress is None:
            return
        self._shown_failures += 1
        if self._shown_failures <= 10:
            where = ", ".join(f"{k}={v}" for k, v in params.items()) or "(no parameters)"
            self._progress.console.print(f"[red]failed[/red] {where}, run {run}: {error}", highlight=False)
        elif self._shown_failures == 11:
            self._progress.console.print("[red]more failures[/red]: see the store's runs (status = 'failed')")

    def stop(self) -> None:
        if self._callback is not None:
            self._callback("stop", {"executed": self._stats.executed, "failed": self._stats.failed})
        elif self._progress is not None:
            self._progress.stop()
            self._progress = None
