"""First paint on a slow phone, as `make bench` reports it (tests/bench.py): headless Chromium on a
390 px phone under Chromium's Slow-4G network emulation and Lighthouse's mobile CPU slowdown loads
the home page, a chapter and the numbers sheet, served from 127.0.0.1 with gzip as a static host
serves them, and records the first contentful paint, the layout shift as the page loads, and any
formula on screen as raw TeX.

Slow-4G is DevTools' preset of that name: 562.5 ms of latency on every request (150 ms × 3.75),
1.44 Mbit/s down and 675 kbit/s up (1.6 Mbit/s and 750 kbit/s at 90 %). Lighthouse's mobile preset
slows the processor 4×.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import io
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import headless

SLOW_4G = {"offline": False, "latency": 150 * 3.75,
           "downloadThroughput": 1.6e6 * 0.9 / 8, "uploadThroughput": 750e3 * 0.9 / 8}  # bytes per second
CPU_SLOWDOWN = 4
PHONE = {"width": 390, "height": 844}
PAGES = {"home page": "", "chapter": "guide/roofline/", "numbers sheet": "numbers/"}
TARGET_MS = 2000

# What a static host compresses (GitHub Pages, nginx's gzip_types): text, not fonts or pictures.
COMPRESSED = {".html", ".css", ".js", ".json", ".svg", ".xml", ".txt", ".csv"}


@functools.cache
def _gzipped(path: Path, mtime: float) -> bytes:
    return gzip.compress(path.read_bytes(), compresslevel=6)


class _GzipHandler(headless.QuietHandler):
    def send_head(self) -> Any:
        path = Path(self.translate_path(self.path))
        if path.is_dir() and self.path.split("?", 1)[0].endswith("/"):
            path = path / "index.html"
        if not (path.is_file() and path.suffix in COMPRESSED and "gzip" in self.headers.get("Accept-Encoding", "")):
            return super().send_head()
        body = _gzipped(path, path.stat().st_mtime)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)


def serve_compressed(site: Path) -> contextlib.AbstractContextManager[str]:
    """Serve `site` on 127.0.0.1 with gzip for text, as a static host does; yields the base URL."""
    return headless.serve(site, _GzipHandler)


# Installed before the page's own scripts: the layout shifts as the page loads, and at each frame
# until the load event, the formulas on screen as TeX (their delimiters in the text; a formula the
# parser has opened but not yet filled shows nothing, so it does not count).
_WATCH_JS = """window.__shift = 0; window.__rawTex = 0;
new PerformanceObserver(list => {
  for (const e of list.getEntries()) if (!e.hadRecentInput) window.__shift += e.value;
}).observe({type: "layout-shift", buffered: true});
(function look() {
  const raw = [...document.querySelectorAll(".arithmatex")]
    .filter(el => /\\\\[([]/.test(el.textContent) && !el.querySelector(".katex")).length;
  window.__rawTex = Math.max(window.__rawTex, raw);
  if (document.readyState !== "complete") requestAnimationFrame(look);
})();"""


@dataclass
class Paint:
    fcp_ms: float
    layout_shift: float
    raw_tex: int  # the most formulas seen untypeset at any frame before the load event


def measure(chromium: Any, base: str, path: str) -> Paint:
    """One first visit to `path` (a fresh profile: nothing cached) on the slow phone."""
    context = chromium.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        context.add_init_script(_WATCH_JS)
        page = context.new_page()
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send("Network.emulateNetworkConditions", SLOW_4G)
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": CPU_SLOWDOWN})
        page.goto(base + path, wait_until="load", timeout=120_000)
        page.wait_for_timeout(1000)  # a swap or a late script after the load event still counts
        fcp = page.evaluate("performance.getEntriesByName('first-contentful-paint')[0].startTime")
        return Paint(fcp, page.evaluate("window.__shift"), page.evaluate("window.__rawTex"))
    finally:
        context.close()


def measure_all(chromium: Any, site: Path, runs: int = 3) -> dict[str, list[Paint]]:
    """Each page of PAGES, `runs` first visits."""
    with serve_compressed(site) as base:
        return {name: [measure(chromium, base, path) for _ in range(runs)] for name, path in PAGES.items()}


def report(paints: dict[str, list[Paint]]) -> list[str]:
    """One line a page: the median first contentful paint against the target, the worst layout
    shift, and whether any formula was ever on screen as TeX."""
    lines = []
    for name, runs in paints.items():
        fcp = statistics.median(p.fcp_ms for p in runs)
        lines.append(f"FCP, Slow-4G, {name:13s} {fcp / 1000:5.2f} s  (median of {len(runs)}: "
                     f"{', '.join(f'{p.fcp_ms / 1000:.2f}' for p in runs)}; target < {TARGET_MS / 1000:.0f} s"
                     f"{'' if fcp < TARGET_MS else ', OVER'}); layout shift ≤ {max(p.layout_shift for p in runs):.3f}; "
                     f"raw TeX on screen: {max(p.raw_tex for p in runs)} formulas")
    return lines
