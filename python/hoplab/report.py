"""`hoplab reproduce`: run a paper's experiments, draw its figures, write
the report (Markdown, and a self-contained HTML page with every figure
embedded as base64 PNG).

Layout of the output directory (default `reports/<paper>[-quick]/`):

```
report.md  report.html   the report
figures/                 <figure>.png .svg .csv
store/                   the results store of every run (resume: run the
                         same command again; only missing runs execute)
```

A figure whose runs failed, or whose drawing failed, is reported as
"not reproduced: <error>"; the report is always written.
"""

from __future__ import annotations

import base64
import datetime
import html
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hoplab import _core
from hoplab.campaign import ProgressCallback, SweepPlan, SweepStats, build_build_id, sweep_many, task_cost
from hoplab.executors import default_jobs
from hoplab.papers import ExperimentData, Figure, FigureResult, NotReproduced, Paper
from hoplab.papers.verdicts import NOT_REPRODUCED, VERDICT_RULE, enforce
from hoplab.paths import remove_stale_temporaries
from hoplab.scenario import Scenario
from hoplab.store import Store

__all__ = ["ReproduceResult", "check_out_dir", "default_out_dir", "reproduce"]


@dataclass
class ReproduceResult:
    paper: Paper
    out: Path
    markdown: Path
    html: Path
    figures: dict[str, FigureResult] = field(default_factory=dict)
    stats: dict[str, SweepStats] = field(default_factory=dict)
    wall_seconds: float = 0.0
    #: A view of one representative run per experiment (hoplab.view.reports).
    views: dict[str, Any] = field(default_factory=dict)


#: How often a reproduction writes its finished runs (at most; and every
#: 500 runs, and whenever it stops, Ctrl-C and SIGTERM included): a killed
#: one loses at most this much of its workers' time. Every batch is a
#: Parquet file each later read of the store opens, and a sweep's 2 s
#: made a full reproduction's store 600-800 files (docs/timings.md).
_FLUSH_SECONDS = 30.0


def default_out_dir(paper_id: str, quick: bool) -> Path:
    return Path("reports") / (paper_id + ("-quick" if quick else ""))


def check_out_dir(out_dir: str | Path, key: str = "out") -> None:
    """Raise `hoplab.paths.OutputPathError` (naming `key`) unless the
    report directory, its `figures/` and its run store can be made and
    written. Leaves nothing behind."""
    from hoplab.paths import check_output_dir

    check_output_dir(out_dir, key, ("figures", "store"))
    Store(Path(out_dir) / "store").check(key)


def check_settings(paper: Paper, quick: bool, runs: int | None) -> None:
    """Raise ScenarioError for settings no run could use (seeds past
    2**64 - 1 with this many runs), before any run."""
    import math

    from hoplab.campaign import base_seed, check_seeds, check_size

    if runs is not None and (isinstance(runs, bool) or not isinstance(runs, int) or runs < 1):
        from hoplab.scenario import scenario_error

        raise scenario_error("runs", f"--runs: must be a positive integer, got {runs!r}")
    for experiment in paper.experiments:
        scenario_data, vary, n_runs = experiment.settings(quick, runs)
        check_seeds(base_seed(Scenario(scenario_data)), n_runs)
        check_size(max(1, len(experiment.cases_for(quick) or {})) * math.prod(len(v) for v in vary.values()), n_runs)


def reproduce(
    paper: Paper,
    out: str | Path | None = None,
    *,
    quick: bool = False,
    runs: int | None = None,
    executor: str = "local",
    jobs: int | None = None,
    scheduler: str | None = None,
    progress: bool | ProgressCallback = False,
    log: Callable[[str], None] | None = None,
    run_timeout_s: float | None = None,
) -> ReproduceResult:
    """Run `paper`'s experiments (resuming from `out/store`) and write the report.
    `run_timeout_s`: give a run up after that many wall-clock seconds (it
    counts as failed; the figures that need it say so).

    Raises ScenarioError (bad `runs`, seeds past 2**64 - 1, a bad
    `run_timeout_s`) or `hoplab.paths.OutputPathError` (an `out` that
    cannot be written) before any run."""
    from hoplab.campaign import check_run_timeout

    started = time.perf_counter()
    out_dir = Path(out) if out is not None else default_out_dir(paper.id, quick)
    # Everything a run needs is checked before the first one starts.
    check_settings(paper, quick, runs)
    check_run_timeout(run_timeout_s)
    check_out_dir(out_dir)
    figures_dir = out_dir / "figures"
    figures_dir.mkdir(parents=True, exist_ok=True)
    for folder in (out_dir, figures_dir):  # what a killed reproduction left
        remove_stale_temporaries(folder)
    store = Store(out_dir / "store")
    say = log or (lambda _message: None)
    data: dict[str, ExperimentData] = {}
    stats: dict[str, SweepStats] = {}
    ran: list[tuple[Any, Any, Any, int]] = []
    needed = {name for figure in paper.figures for name in figure.experiments}
    executor_obj: Any = executor
    own = False
    if executor == "dask":  # one cluster for every experiment
        from hoplab.executors import make_executor

        executor_obj = make_executor("dask", jobs, scheduler)
        own = True
    plans: list[SweepPlan] = []
    for experiment in paper.experiments:
        if experiment.name not in needed:
            continue
        scenario_data, vary, n_runs = experiment.settings(quick, runs)
        say(f"{experiment.name}: {experiment.description}")
        plans.append(SweepPlan(f"{paper.id}/{experiment.name}", Scenario(scenario_data), dict(vary), n_runs,
                               experiment.cases_for(quick), experiment.series))
        ran.append((experiment, scenario_data, vary, n_runs))
    try:
        # Every experiment's runs in one pass: a run two experiments share
        # executes once, and the workers stay busy until the last run.
        frames = sweep_many(plans, store=store, executor=executor_obj, jobs=jobs, scheduler=scheduler,
                            progress=progress, check_parameters=False, run_timeout_s=run_timeout_s,
                            flush_seconds=_FLUSH_SECONDS)
    finally:
        if own:
            executor_obj.close()
    for (experiment, *_), plan, frame in zip(ran, plans, frames, strict=True):
        stats[experiment.name] = plan.stats
        data[experiment.name] = _experiment_data(experiment, frame, store)

    from hoplab.view.reports import chosen_views

    chosen = chosen_views(ran, {name: d.runs for name, d in data.items()}, quick, say)
    say(f"recording one run per experiment for its view; drawing {len(paper.figures)} figures and judging them")
    workers = (jobs or default_jobs()) if executor == "local" else 1
    views, results = _views_and_figures(chosen, paper.figures, data, out_dir, workers)
    wall = time.perf_counter() - started
    result = ReproduceResult(paper, out_dir, out_dir / "report.md", out_dir / "report.html", results, stats, wall,
                             views)
    _write_markdown(result, quick, runs)
    _write_html(result, quick, runs)
    return result


#: What the forked workers of `_views_and_figures` read: set in the parent
#: just before they fork, so the experiments' data reach them without
#: being pickled.
_FORK_STATE: dict[str, Any] = {}


def _views_and_figures(chosen: list[tuple[str, Any]], figures: Sequence[Figure],
                       data: Mapping[str, ExperimentData], out_dir: Path,
                       workers: int) -> tuple[dict[str, Any], dict[str, FigureResult]]:
    """Record each chosen view and draw each figure: in `workers` forked
    processes (a local reproduction: the views' runs first, the longest),
    else one after another here. Each job writes its own files, and the
    results are kept in the paper's order, so the report is the same either
    way; a job a worker could not finish is done again here."""
    import multiprocessing

    from hoplab.view.reports import write_view

    figures_dir = out_dir / "figures"
    by_cost = sorted(range(len(chosen)), key=lambda i: -task_cost(chosen[i][1]))
    jobs: list[tuple[str, int]] = [("view", i) for i in by_cost] + [("figure", i) for i in range(len(figures))]
    done: dict[tuple[str, int], Any] = {}
    if workers > 1 and len(jobs) > 1 and "fork" in multiprocessing.get_all_start_methods():
        from concurrent.futures import ProcessPoolExecutor

        from hoplab.executors import _worker_start

        _preload_drawing()  # once here, not once per worker
        _FORK_STATE.update(chosen=chosen, figures=figures, data=data, out_dir=out_dir)
        fork = multiprocessing.get_context("fork")
        pool = ProcessPoolExecutor(max_workers=min(workers, len(jobs)), mp_context=fork, initializer=_worker_start,
                                   initargs=(os.getpid(),))
        try:
            futures = {job: pool.submit(_forked_job, job) for job in jobs}
            for job, future in futures.items():
                if future.exception() is None:
                    done[job] = future.result()
        except BaseException:  # Ctrl-C: the workers ignore it; stop them now
            for process in list((getattr(pool, "_processes", None) or {}).values()):
                process.kill()
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
            _FORK_STATE.clear()
    for kind, index in jobs:  # here: everything, or what a worker could not finish
        if (kind, index) not in done:
            done[(kind, index)] = (write_view(chosen[index][0], chosen[index][1], out_dir) if kind == "view"
                                   else _make_figure(figures[index], data, figures_dir))
    views = {name: done[("view", i)] for i, (name, _) in enumerate(chosen)}
    return views, {figure.id: done[("figure", i)] for i, figure in enumerate(figures)}


def _forked_job(job: tuple[str, int]) -> Any:
    """One job of `_views_and_figures`, in a forked worker."""
    from hoplab.view.reports import write_view

    kind, index = job
    state = _FORK_STATE
    if kind == "view":
        name, task = state["chosen"][index]
        return write_view(name, task, state["out_dir"])
    return _make_figure(state["figures"][index], state["data"], state["out_dir"] / "figures")


def _preload_drawing() -> None:
    """Import what drawing and judging need before the workers fork."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot  # noqa: F401
    import scipy.stats  # noqa: F401


def _experiment_data(experiment: Any, frame: Any, store: Store) -> ExperimentData:
    import pandas as pd

    from hoplab.stats import tidy

    params = [c for c in (["case"] if experiment.cases else []) + list(experiment.vary) if c in frame.columns]
    if experiment.quick_vary:
        params = list(dict.fromkeys([*params, *[k for k in experiment.quick_vary if k in frame.columns]]))
    ok_ids = frame.loc[frame["status"] == "ok", "run_id"].tolist() if not frame.empty else []
    scalars = store.scalars(ok_ids) if ok_ids else pd.DataFrame(columns=["run_id", "entity", "id", "metric", "value"])
    scalars = tidy(frame, scalars, params) if not frame.empty else scalars
    series = pd.DataFrame(columns=["run_id", "time_s", "entity", "id", "metric", "value"])
    if experiment.series and ok_ids:
        series = tidy(frame, store.series(ok_ids), params)
    return ExperimentData(experiment, frame, scalars, series, params)


def _make_figure(figure: Figure, data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
    """Draw one figure. A figure that cannot be judged (its runs failed)
    keeps what it could draw (e.g. reference curves) and says why."""
    for suffix in (".png", ".svg", ".csv"):  # no stale picture from an earlier run
        stale = (out / figure.stem).with_suffix(suffix)
        if stale.is_file() and not stale.is_symlink():  # never a link, a FIFO or a device: written through
            stale.unlink()
    try:
        result = figure.make(data, out)
    except NotReproduced as e:
        verdict = str(e)
    except Exception as e:  # a bug in a figure must not lose the report
        verdict = f"internal error: {type(e).__name__}: {e}"
    else:
        # The common rule binds every module: no "holds" without checks behind it.
        result.outcome, result.verdict = enforce(str(result.outcome), result.verdict, result.checks)
        return result
    paths = {suffix: (out / figure.stem).with_suffix("." + suffix) for suffix in ("png", "svg", "csv")}
    drawn = {k: v for k, v in paths.items() if v.exists()} if paths["png"].exists() else {}
    notes = ["The figure shows only the curves that could be drawn (references not in the paper, if any)."] \
        if drawn else []
    return FigureResult(verdict=verdict, outcome=NOT_REPRODUCED, paths=drawn, notes=notes)


def _header_lines(result: ReproduceResult, quick: bool, runs: int | None) -> list[tuple[str, str]]:
    paper = result.paper
    total = sum(s.total for s in result.stats.values())
    failed = sum(s.failed for s in result.stats.values())
    executed = sum(s.executed for s in result.stats.values())
    mode = "quick (`--quick`: fewer points and runs, shorter runs)" if quick else "full (the paper's settings)"
    command = f"hoplab reproduce {paper.id}" + (" --quick" if quick else "") + (f" --runs {runs}" if runs else "")
    return [
        ("paper", paper.citation),
        ("command", f"`{command}`"),
        ("mode", mode),
        ("hoplab", f"{_core.version()} (simulator build {build_build_id()})"),
        ("date", datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")),
        ("runs", f"{total} ({executed} executed now, {total - executed} from the store, {failed} failed)"),
        ("wall time", f"{result.wall_seconds:.1f} s"),
    ]


def _experiment_rows(result: ReproduceResult, quick: bool, runs: int | None) -> list[list[str]]:
    rows = []
    for experiment in result.paper.experiments:
        if experiment.name not in result.stats:
            continue
        _, vary, n_runs = experiment.settings(quick, runs)
        s = result.stats[experiment.name]
        names = list(experiment.cases_for(quick) or {})
        cases = ", ".join(names) if len(names) <= 8 else f"{len(names)}: {', '.join(names[:3])}, ..., {names[-1]}"
        cases = cases or "-"
        varied = "; ".join(f"{k} = {', '.join(str(v) for v in values)}" for k, values in vary.items()) or "-"
        duration = experiment.quick_duration_s if quick else experiment.duration_s
        rows.append([experiment.name, experiment.description, cases, varied, str(n_runs), f"{duration:g}",
                     f"{s.total - s.failed}/{s.total}"])
    return rows


def _md_table(header: list[str], rows: list[list[str]]) -> list[str]:
    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return lines


def _write_markdown(result: ReproduceResult, quick: bool, runs: int | None) -> None:
    paper = result.paper
    lines = [f"# Reproduction: {paper.title}", ""]
    lines += [f"- **{key}**: {value}" for key, value in _header_lines(result, quick, runs)]
    lines += ["", "## How verdicts are decided", "", VERDICT_RULE, ""]
    lines += ["## Findings", ""]
    lines += _md_table(["figure", "the paper's finding", "verdict", "why"],
                       [[f"[{f.id}](#{f.stem})", f.finding, f"**{result.figures[f.id].outcome}**",
                         result.figures[f.id].verdict] for f in paper.figures])
    for figure in paper.figures:
        fr = result.figures[figure.id]
        lines += ["", f'<a id="{figure.stem}"></a>', "", f"## {figure.id}", "", f"**{figure.title}**", "",
                  f"*Paper*: {figure.finding}", "", f"*Here*: **{fr.outcome}**: {fr.verdict}", ""]
        png = fr.paths.get("png")
        if png is not None:
            rel = png.relative_to(result.out).as_posix()
            lines += [f"![{figure.id}]({rel})", "",
                      f"Files: [{rel}]({rel}), [SVG]({fr.paths['svg'].relative_to(result.out).as_posix()}), "
                      f"[CSV data]({fr.paths['csv'].relative_to(result.out).as_posix()})", ""]
        if fr.checks:
            lines += _md_table(list(_CHECK_HEADER), [list(c.cells()) for c in fr.checks]) + [""]
        if fr.numbers:
            lines += _md_table(list(_NUMBER_HEADER), [list(n.cells()) for n in fr.numbers]) + [""]
        if fr.rows:
            lines += _md_table(["quantity", "paper", "hoplab"], [list(r) for r in fr.rows]) + [""]
        lines += [f"- {note}" for note in fr.notes]
    lines += ["", "## Experiments", ""]
    lines += _md_table(["experiment", "what", "cases", "varied", "runs per point", "simulated s", "ok runs"],
                       _experiment_rows(result, quick, runs))
    if result.views:
        lines += ["", "## A run of each experiment, to look at", "", _VIEWS_NOTE, ""]
        lines += [f"- [{name}]({v.path}): {v.run}" for name, v in result.views.items()]
    if paper.notes:
        lines += ["", "## Notes", ""] + [f"- {note}" for note in paper.notes]
    if paper.not_covered:
        lines += ["", "## Not covered", ""] + [f"- {item}" for item in paper.not_covered]
    lines += ["", "Error bars and ± are 95 % Student-t confidence intervals over the runs (a bar of a quantity "
              "that cannot be negative is cut at 0; each figure's notes say where). Every number here "
              "can be recomputed from `store/` (Parquet; e.g. `hoplab query " + str(result.out / "store") +
              " 'SELECT \"case\", status, count(*) FROM runs GROUP BY ALL'`).", ""]
    write_text(result.markdown, "\n".join(lines))


_CSS = """
body { font-family: -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif; max-width: 960px; margin: 2em auto;
       padding: 0 1em; color: #222; line-height: 1.45; }
table { border-collapse: collapse; margin: .6em 0; font-size: 14px; }
th, td { border: 1px solid #ccc; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
img { max-width: 100%; border: 1px solid #eee; }
.holds { color: #11661b; font-weight: 600; } .fails { color: #a11; font-weight: 600; }
.missing { color: #8a5a00; font-weight: 600; } .unsure { color: #35508a; font-weight: 600; }
.agrees { color: #11661b; } .contradicts { color: #a11; } .unresolved { color: #35508a; }
.rule { background: #f7f7f7; padding: .6em .9em; border-left: 3px solid #bbb; }
code { background: #f4f4f4; padding: 1px 4px; }
.figure { margin: 2em 0; padding-top: 1em; border-top: 1px solid #ddd; }
"""


_VIEWS_NOTE = ("Each page (`hoplab view`, docs/view.md) shows one run of the experiment over time: the nodes, "
               "each flow's route, frames and losses, a timeline of route breaks, timeouts and stalls, and "
               "per-flow plots. It opens from disk, with no server.")

_CHECK_HEADER = ("point", "claim", "hoplab (mean, 95 % CI)", "status")
_NUMBER_HEADER = ("the paper's number", "paper", "hoplab", "hoplab / paper", "flag")


def _verdict_class(fr: FigureResult) -> str:
    return {"holds": "holds", "does not hold": "fails", "inconclusive": "unsure"}.get(str(fr.outcome), "missing")


def _html_table(header: list[str], rows: list[list[str]], raw: bool = False) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{c if raw else html.escape(c)}</td>" for c in row) + "</tr>"
                   for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _code(text: str, bold: bool = False) -> str:
    """Escape, turning `x` into <code>x</code> (and **x** into <b>x</b> if `bold`)."""
    parts = html.escape(text).split("`")
    out = "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts))
    if bold:
        pieces = out.split("**")
        out = "".join(f"<b>{p}</b>" if i % 2 else p for i, p in enumerate(pieces))
    return out


def _write_html(result: ReproduceResult, quick: bool, runs: int | None) -> None:
    paper = result.paper
    out = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{html.escape(paper.title)}"
           f" — hoplab reproduction</title><style>{_CSS}</style></head><body>",
           f"<h1>Reproduction: {html.escape(paper.title)}</h1><ul>"]
    out += [f"<li><b>{html.escape(k)}</b>: {_code(v)}</li>" for k, v in _header_lines(result, quick, runs)]
    out += ["</ul><h2>How verdicts are decided</h2>", f"<p class='rule'>{_code(VERDICT_RULE, bold=True)}</p>",
            "<h2>Findings</h2>"]
    rows = [[f"<a href='#{f.stem}'>{html.escape(f.id)}</a>", html.escape(f.finding),
             f"<span class='{_verdict_class(result.figures[f.id])}'>{html.escape(str(result.figures[f.id].outcome))}"
             "</span>", html.escape(result.figures[f.id].verdict)] for f in paper.figures]
    out.append(_html_table(["figure", "the paper's finding", "verdict", "why"], rows, raw=True))
    for figure in paper.figures:
        fr = result.figures[figure.id]
        out.append(f"<div class='figure' id='{figure.stem}'><h2>{html.escape(figure.id)}: "
                   f"{html.escape(figure.title)}</h2>")
        out.append(f"<p><i>Paper</i>: {html.escape(figure.finding)}</p>")
        out.append(f"<p><i>Here</i>: <span class='{_verdict_class(fr)}'>{html.escape(str(fr.outcome))}</span>: "
                   f"{html.escape(fr.verdict)}</p>")
        png = fr.paths.get("png")
        if png is not None and png.exists():
            encoded = base64.b64encode(png.read_bytes()).decode("ascii")
            out.append(f"<img alt='{html.escape(figure.id)}' src='data:image/png;base64,{encoded}'>")
        if fr.checks:
            out.append(_html_table(list(_CHECK_HEADER), [
                [html.escape(c.point), html.escape(c.claim), html.escape(c.estimate),
                 f"<span class='{c.status}'>{html.escape(c.status)}</span>"] for c in fr.checks], raw=True))
        if fr.numbers:
            out.append(_html_table(list(_NUMBER_HEADER), [list(n.cells()) for n in fr.numbers]))
        if fr.rows:
            out.append(_html_table(["quantity", "paper", "hoplab"], [list(r) for r in fr.rows]))
        if fr.notes:
            out.append("<ul>" + "".join(f"<li>{_code(n)}</li>" for n in fr.notes) + "</ul>")
        out.append("</div>")
    out.append("<h2>Experiments</h2>")
    out.append(_html_table(["experiment", "what", "cases", "varied", "runs per point", "simulated s", "ok runs"],
                           _experiment_rows(result, quick, runs)))
    if result.views:
        out.append(f"<h2>A run of each experiment, to look at</h2><p>{_code(_VIEWS_NOTE)}</p><ul>")
        out += [f"<li><a href='{html.escape(v.path)}'>{html.escape(name)}</a>: {html.escape(v.run)}</li>"
                for name, v in result.views.items()]
        out.append("</ul>")
    if paper.notes:
        out.append("<h2>Notes</h2><ul>" + "".join(f"<li>{_code(n)}</li>" for n in paper.notes) + "</ul>")
    if paper.not_covered:
        out.append("<h2>Not covered</h2><ul>" + "".join(f"<li>{_code(n)}</li>" for n in paper.not_covered)
                   + "</ul>")
    out.append("<p>Error bars and ± are 95 % Student-t confidence intervals over the runs (a bar of a quantity "
               "that cannot be negative is cut at 0; each figure's notes say where). The data of every "
               "figure is in <code>figures/*.csv</code>; every run is in <code>store/</code> (Parquet, "
               "DuckDB).</p></body></html>")
    write_text(result.html, "\n".join(out))


def write_text(path: Path, text: str) -> None:
    """A report file, through `hoplab.paths.write_file` (never replacing a
    FIFO, a device or a link; a temporary made exclusively, then renamed)."""
    from hoplab.paths import write_file

    write_file(path, lambda handle: handle.write(text.encode("utf-8")), "out")
