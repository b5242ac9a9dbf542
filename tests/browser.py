"""Headless Chromium for the view's tests (tests/test_view.py) and for the
screenshot in docs/ (`python tests/browser.py`): Playwright (pinned in
requirements-test.lock) driving the system's Chromium (Debian's
`chromium`, which .ci/run installs when missing), never a downloaded one.

`python tests/browser.py` runs examples/semitcp-mobile-48.toml for 60 s
recorded, writes its page, opens it, moves the cursor to 50 s and saves
docs/view-semitcp-mobile-48.png: the screenshot docs/view.md shows.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SCREENSHOT = ROOT / "docs" / "view-semitcp-mobile-48.png"
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")


def chromium_path() -> str | None:
    """The system Chromium (HOPLAB_CHROMIUM overrides), or None."""
    given = os.environ.get("HOPLAB_CHROMIUM")
    if given:
        return given
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


def unavailable() -> str | None:
    """Why the browser tests cannot run here (None: they can)."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install -r requirements-test.lock)"
    if chromium_path() is None:
        return "no system Chromium (apt-get install -y chromium; .ci/run installs it)"
    return None


class Page:
    """An opened view page: its Playwright page and the console errors
    and page errors seen so far."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.errors: list[str] = []
        page.on("console", lambda m: self.errors.append(f"console.{m.type}: {m.text}") if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))

    def state(self) -> dict[str, Any]:
        result: dict[str, Any] = self.page.evaluate("window.hoplabViewer.state()")
        return result

    def seek(self, time_s: float) -> dict[str, Any]:
        result: dict[str, Any] = self.page.evaluate("t => window.hoplabViewer.seek(t)", time_s)
        return result


@contextmanager
def launch() -> Iterator[Any]:
    """Headless system Chromium, through Playwright: the Browser."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), headless=True,
                                     args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def open_page(html: str | os.PathLike[str], browser: Any = None, width: int = 1400, height: int = 1000) -> Iterator[Page]:
    """Open the page at `html` from disk in `browser` (None: a Chromium of
    its own), with no network: every request but the file itself is
    refused (and counted as an error)."""
    if browser is None:
        with launch() as own, open_page(html, own, width, height) as opened:
            yield opened
        return
    path = Path(html).resolve()
    context = browser.new_context(viewport={"width": width, "height": height})
    try:
        opened = Page(context.new_page())

        def route(request_route: Any) -> None:
            if request_route.request.url == path.as_uri():
                request_route.continue_()
            else:
                opened.errors.append(f"network request: {request_route.request.url}")
                request_route.abort()

        context.route("**/*", route)
        opened.page.goto(path.as_uri(), wait_until="load")
        opened.page.wait_for_function("window.hoplabViewer !== undefined", timeout=30_000)
        yield opened
    finally:
        context.close()


def make_docs_screenshot(out: Path = SCREENSHOT, time_s: float = 50.0, browser: Any = None) -> Path:
    """The docs' screenshot (see the module doc)."""
    import tempfile

    import hoplab
    from hoplab.view import view

    scenario = hoplab.load_scenario(ROOT / "examples" / "semitcp-mobile-48.toml", ["duration_s=60"])
    result = hoplab.run(scenario, record=True)
    with tempfile.TemporaryDirectory() as tmp:
        page_path = view(result, Path(tmp) / "view.html")
        with open_page(page_path, browser) as opened:
            opened.seek(time_s)
            opened.page.evaluate("window.hoplabViewer.setQuantity('queue_packets')")
            opened.page.screenshot(path=str(out), full_page=True)
            if opened.errors:
                raise RuntimeError("; ".join(opened.errors))
    return out


if __name__ == "__main__":
    reason = unavailable()
    if reason:
        raise SystemExit(f"cannot take the screenshot: {reason}")
    print(make_docs_screenshot())
