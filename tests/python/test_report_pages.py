"""Every page of a report, rendered in headless Chromium (Debian's chromium
and chromium-driver, driven by Selenium): no broken local link, every image
loaded, no page error (a JavaScript error or a resource that failed to load),
no line of prose wider than the page, and the index showing every study's
verdicts, coloured.

The report is built by the commands `make reproduce` runs: `vmlab reproduce
s2`, `vmlab reproduce s4`, `vmlab reproduce s1 --grid test` (on a generated trace given with
--trace, so the test needs no valgrind capture) and `vmlab report`. The test
is skipped when Chromium, its driver or Selenium is missing, except under CI
(CI=true), where that is a failure. Screenshots of each page go to
$VMLAB_SCREENSHOTS when it is set.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from conftest import TINY_TRACE, vmlab_command, write_random_trace

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")


def _browser_or_skip() -> None:
    missing = [name for name, path in (("chromium", CHROMIUM), ("chromedriver (Debian: chromium-driver)",
                                                                 CHROMEDRIVER)) if not path]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("selenium (pip install 'vmlab[test]')")
    if missing:
        message = "headless page test needs " + ", ".join(missing)
        if os.environ.get("CI") == "true":
            pytest.fail(message + " (CI=true: it must run)")
        pytest.skip(message)


# Installed before any script of the page runs: records uncaught errors and
# resources (images, stylesheets, scripts) that failed to load.
WATCH = """
window.__pageErrors = [];
window.addEventListener('error', function (e) {
  var t = e.target;
  if (t && t !== window && (t.src || t.href)) { window.__pageErrors.push('failed to load ' + (t.src || t.href)); }
  else { window.__pageErrors.push('error: ' + (e.message || e)); }
}, true);
window.addEventListener('unhandledrejection', function (e) { window.__pageErrors.push('rejection: ' + e.reason); });
"""

INSPECT = """
const wide = el => el.scrollWidth > el.clientWidth + 1;
return {
  errors: window.__pageErrors || [],
  links: [...document.querySelectorAll('a[href]')].map(a => a.href),
  ids: [...document.querySelectorAll('[id]')].map(e => e.id),
  images: [...document.images].map(i => ({src: i.src, ok: i.complete && i.naturalWidth > 0})),
  pageScrollsSideways: document.documentElement.scrollWidth > document.documentElement.clientWidth,
  wideProse: [...document.querySelectorAll('p, li, figcaption, h1, h2, h3, td.prose')]
      .filter(wide).map(e => e.tagName + ': ' + e.textContent.slice(0, 60)),
  height: document.documentElement.scrollHeight,
};
"""


class Browser:
    """A headless Chromium that loads a page and reports what is wrong with it."""

    WIDTH = 1100

    def __init__(self) -> None:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        opts = webdriver.ChromeOptions()
        opts.binary_location = CHROMIUM
        for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                    f"--window-size={self.WIDTH},900", "--hide-scrollbars"):
            opts.add_argument(arg)
        opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        # The driver is Debian's, of the same build as the browser: Selenium
        # fetches nothing.
        self.driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=opts)
        self.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": WATCH})

    def load(self, path: Path) -> dict:
        self.driver.set_window_size(self.WIDTH, 900)
        self.driver.get(path.as_uri())
        page = self.driver.execute_script(INSPECT)
        page["console"] = [e["message"] for e in self.driver.get_log("browser") if e["level"] == "SEVERE"]
        return page

    def screenshot(self, page: dict, out: Path) -> None:
        self.driver.set_window_size(self.WIDTH, min(page["height"] + 50, 20000))
        self.driver.save_screenshot(str(out))

    def quit(self) -> None:
        self.driver.quit()


def problems_of(index: Path, browser: Browser, shots: Path | None = None) -> tuple[list[str], dict[Path, dict]]:
    """Loads ``index`` and every local page it leads to; returns what is wrong
    and each visited page's inspection."""
    root = index.parent.resolve()
    seen: dict[Path, dict] = {}
    todo = [index.resolve()]
    wrong: list[str] = []
    fragments: list[tuple[Path, str, Path]] = []
    while todo:
        page_path = todo.pop()
        if page_path in seen:
            continue
        page = seen[page_path] = browser.load(page_path)
        name = page_path.relative_to(root)
        if shots is not None:
            browser.screenshot(page, shots / (str(name).replace(os.sep, "_").replace(".html", ".png")))
        wrong += [f"{name}: {e}" for e in page["errors"] + page["console"]]
        wrong += [f"{name}: image did not load: {i['src']}" for i in page["images"] if not i["ok"]]
        wrong += [f"{name}: prose wider than its box: {w}" for w in page["wideProse"]]
        if page["pageScrollsSideways"]:
            wrong.append(f"{name}: the page scrolls sideways at {Browser.WIDTH} px")
        for href in page["links"]:
            url = urlsplit(href)
            if url.scheme != "file":
                continue  # a report links nothing outside itself; were it to, this checks no network
            target = Path(unquote(url.path)).resolve()
            if root not in (target, *target.parents):
                wrong.append(f"{name}: link leaves the report folder: {href}")
            elif not target.is_file():
                wrong.append(f"{name}: broken link: {href}")
            else:
                if target.suffix == ".html":
                    todo.append(target)
                if url.fragment:
                    fragments.append((page_path, url.fragment, target))
    for page_path, fragment, target in fragments:
        if target in seen and fragment not in seen[target]["ids"]:
            wrong.append(f"{page_path.relative_to(root)}: link to a missing anchor: {target.name}#{fragment}")
    return wrong, seen


@pytest.fixture(scope="module")
def browser():
    _browser_or_skip()
    b = Browser()
    yield b
    b.quit()


def _vmlab(cwd: Path, *args: str) -> None:
    proc = subprocess.run([*vmlab_command(), *args], cwd=cwd, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=600)
    assert proc.returncode == 0, f"vmlab {' '.join(args)} -> {proc.returncode}\n{proc.stderr}"


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    """A report folder as `make reproduce` writes it, on small inputs."""
    d = tmp_path_factory.mktemp("reproduce")
    import vmlab

    vmlab.convert_trace(write_random_trace(d / "db.lackey", 60_000, seed=7), d / "db.vmt")
    (d / "tiny.lackey").write_text(TINY_TRACE)
    _vmlab(d, "reproduce", "s2", "--results", "results/s2", "--report", "report/s2")
    _vmlab(d, "reproduce", "s3", "--grid", "small", "--results", "results/s3", "--report", "report/s3")
    _vmlab(d, "reproduce", "s4", "--results", "results/s4", "--report", "report/s4", "--read-programs", "cat")
    _vmlab(d, "reproduce", "s5", "--results", "results/s5", "--report", "report/s5")
    _vmlab(d, "reproduce", "s1", "--grid", "test", "--trace", "database=db.vmt", "-j", "1",
           "--results", "results/s1", "--report", "report/s1")
    _vmlab(d, "report", "-t", "tiny.lackey", "-m", "jm-base", "-o", "report/index.html", "-q")
    return d / "report"


def test_every_report_page_renders_whole(browser, report):
    shots = Path(os.environ["VMLAB_SCREENSHOTS"]) if os.environ.get("VMLAB_SCREENSHOTS") else None
    if shots:
        shots.mkdir(parents=True, exist_ok=True)
    wrong, seen = problems_of(report / "index.html", browser, shots)
    assert wrong == []
    visited = {p.relative_to(report.resolve()).as_posix() for p in seen}
    assert visited == {"index.html", *(f"s{n}/index.html" for n in range(1, 6))}
    # Every study page has its figures and a way back.
    for study, figures in (("s1", 3), ("s2", 4), ("s3", 6), ("s4", 5), ("s5", 1)):
        page = seen[(report / study / "index.html").resolve()]
        assert len(page["images"]) == figures, study
        assert (report / "index.html").resolve().as_uri() in page["links"], study


def test_index_shows_every_verdict_coloured(browser, report):
    from selenium.webdriver.common.by import By

    expected = []
    # Verdicts per study: S2's six plus its six policy claims (issue 25).
    for study, count in (("s1", 5), ("s2", 12), ("s3", 10), ("s4", 10), ("s5", 17)):
        doc = json.loads((report / study / "verdicts.json").read_text())
        assert doc["format"] == 1 and doc["study"] == study
        assert len(doc["verdicts"]) == count, study
        expected += [v["verdict"] for v in doc["verdicts"]]
    browser.load(report / "index.html")
    badges = browser.driver.find_elements(By.CSS_SELECTOR, "span.verdict")
    assert [b.text for b in badges] == expected
    colours = {b.text: b.value_of_css_property("color") for b in badges}
    assert len(set(colours.values())) == len(colours), colours  # HOLDS and FAILS differ


def test_the_checker_finds_each_kind_of_fault(browser, tmp_path):
    """A page with a broken link, a missing image, a script error, a missing
    anchor and an over-wide line: each is reported."""
    (tmp_path / "other.html").write_text("<!DOCTYPE html><html><body><p id='here'>x</p></body></html>")
    (tmp_path / "index.html").write_text(
        "<!DOCTYPE html><html><body>"
        "<a href='other.html#here'>fine</a> <a href='other.html#gone'>anchor</a> <a href='nowhere.html'>broken</a>"
        "<img src='missing.png' alt=''><script>undefinedFunction();</script>"
        "<p style='white-space: nowrap'>" + "wide " * 400 + "</p></body></html>")
    wrong, seen = problems_of(tmp_path / "index.html", browser)
    text = "\n".join(wrong)
    assert "broken link" in text and "nowhere.html" in text
    assert "image did not load" in text and "missing.png" in text
    assert "undefinedFunction" in text
    assert "missing anchor: other.html#gone" in text
    assert "prose wider" in text and "scrolls sideways" in text
    assert "other.html#here" not in text and len(seen) == 2
