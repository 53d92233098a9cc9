"""Headless Chromium against a built site served on 127.0.0.1: screenshots and PDFs.

Used by the browser tests and by hand:
    python tests/browser.py SITE_DIR PAGE OUT.png [--dark] [--width 1280] [--height 2400]
    python tests/browser.py SITE_DIR PAGE OUT.pdf
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import http.server
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Iterator

# No background traffic: this machine's network is closed and Chromium's own calls home would
# otherwise be refused (and slow every start).
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
         "--hide-scrollbars", "--disable-features=Translate,MediaRouter"]


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


@contextlib.contextmanager
def serve(site: Path) -> Iterator[str]:
    """Serve `site` on 127.0.0.1 on a free port; yields the base URL."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


def _run(args: list[str]) -> None:
    browser = chromium()
    if browser is None:
        raise RuntimeError("Chromium is not installed: apt-get install -y chromium")
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run([browser, *FLAGS, f"--user-data-dir={profile}", *args], check=True,
                       capture_output=True, timeout=120)


def screenshot(url: str, out: Path, dark: bool = False, width: int = 1280, height: int = 2400) -> Path:
    scheme = ["--force-dark-mode", "--blink-settings=preferredColorScheme=0"] if dark else \
        ["--blink-settings=preferredColorScheme=1"]
    _run([*scheme, f"--window-size={width},{height}", "--virtual-time-budget=4000",
          f"--screenshot={out}", url])
    return out


def pdf(url: str, out: Path) -> Path:
    _run(["--no-pdf-header-footer", "--virtual-time-budget=4000", f"--print-to-pdf={out}", url])
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("site", type=Path)
    p.add_argument("page", help="path under the site, e.g. conventions/")
    p.add_argument("out", type=Path)
    p.add_argument("--dark", action="store_true")
    p.add_argument("--width", type=int, default=1280)
    p.add_argument("--height", type=int, default=2400)
    a = p.parse_args()
    with serve(a.site) as base:
        if a.out.suffix == ".pdf":
            pdf(base + a.page, a.out)
        else:
            screenshot(base + a.page, a.out, a.dark, a.width, a.height)
    print(a.out)


if __name__ == "__main__":
    main()
