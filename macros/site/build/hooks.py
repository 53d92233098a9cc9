"""MkDocs hooks (loaded by path from mkdocs.yml)."""

from __future__ import annotations

import os
import sys
from typing import Any

from mkdocs.plugins import event_priority

# The mkdocs command running. on_startup runs once per command, for the first configuration only:
# `mkdocs serve` loads the configuration, and so this module, afresh for every rebuild, where it stays None.
_command: dict[str, str | None] = {"name": None}


def on_startup(command: str, dirty: bool) -> None:
    _command["name"] = command


# Run before the macros plugin's own on_config (priority 0), which imports `macros` and calls
# define_env(). Python caches the package in sys.modules, so without this `mkdocs serve` keeps
# showing the old figures after a formula or data edit (watched through `watch:` in mkdocs.yml).
@event_priority(100)
def on_config(config: Any) -> Any:
    for name in [n for n in sys.modules if n == "macros" or n.startswith("macros.")]:
        del sys.modules[name]
    # A page that fails to render must fail a build, never be published with the error as its text, which
    # mkdocs-macros does when on_error_fail is off (MACROS_FAIL=false, meant for `make serve` only).
    macros_plugin = config.plugins.get("macros")
    if _command["name"] not in (None, "serve") and macros_plugin is not None:
        macros_plugin.config["on_error_fail"] = True
    return config


def on_files(files: Any, config: Any) -> Any:
    """Add the rendered drawings (diagrams/*.py) to the site, rendering only on a cache miss; the
    browser calculator's catalog and engine (macros/site/build/browser_engine.py); the practice problems'
    JSON and the flashcard files (filled in by on_env)."""
    from mkdocs.exceptions import PluginError
    from mkdocs.structure.files import File

    from macros.site.build import drawings

    try:
        drawings.start(drawings.usage_order(_pages_in_order(config)))
        rendered = drawings.site_files()
    except drawings.DrawingError as exc:  # one line naming the drawing, no traceback
        raise PluginError(str(exc)) from None
    for uri, source in rendered.items():
        if isinstance(source, bytes):
            files.append(File.generated(config, uri, content=source))
        else:
            files.append(File.generated(config, uri, abs_src_path=str(source)))
    from macros.engine.lookup import InputError
    from macros.engine.specs import SpecError
    from macros.site import practice
    from macros.site.build import browser_engine, practice_assets

    # The catalog and the practice problems run the engine over the data: a data error is one line, naming
    # the file being made and the entry at fault (a design file's variant no replica shape can serve).
    try:
        engine_files = browser_engine.site_files()
    except (InputError, SpecError) as exc:
        raise PluginError(f"the browser calculator's catalog: {exc}") from None
    except browser_engine.BundleError as exc:  # the bundler missing: one line that says how to install it
        raise PluginError(str(exc)) from None
    try:
        problems = practice.problems_json()
    except (InputError, SpecError) as exc:
        raise PluginError(f"{PROBLEMS_JSON}: {exc}") from None
    for uri, text in engine_files.items():  # the browser calculator's catalog and engine
        files.append(File.generated(config, uri, content=text))
    try:
        practice_files = practice_assets.site_files()
    except (InputError, SpecError) as exc:  # the mock rounds' rubric (data/practice/rubric.toml): one line
        raise PluginError(f"the mock rounds: {exc}") from None
    for uri, text in practice_files.items():  # the practice widgets' script, the rounds' JSON
        files.append(File.generated(config, uri, content=text))
    # The practice problems' export, and the flashcards: empty here so the flashcards page can link
    # them; on_env fills the deck once the questions page is rendered (its answers go on the cards).
    _questions.clear()
    files.append(File.generated(config, PROBLEMS_JSON, content=problems))
    for uri in (*DECK_FILES, practice_assets.REVIEW_CARDS):
        files.append(File.generated(config, uri, content=b""))
    return files


def _pages_in_order(config: Any) -> list[Any]:
    """The Markdown files of the navigation, in its order."""
    from pathlib import Path

    def walk(entry: Any) -> list[str]:
        if isinstance(entry, str):
            return [entry] if entry.endswith(".md") else []
        items = entry.values() if isinstance(entry, dict) else entry
        return [page for item in items for page in walk(item)]

    docs = Path(config["docs_dir"])
    return [docs / page for page in walk(config["nav"] or []) if (docs / page).is_file()]


PROBLEMS_JSON = "practice/problems.json"
DECK_FILES = ("practice/flashcards.apkg", "practice/flashcards.csv")
_questions: dict[str, str] = {}  # the questions page's rendered HTML and its URL, for the flashcards


def on_page_content(html: str, page: Any, config: Any, files: Any) -> str:
    """Keep model names and command-line flags whole at line ends (macros/site/build/nobreak.py)."""
    from macros.site.build import nobreak

    html = nobreak.keep_together(html)
    if page.file.src_uri == "questions.md":
        _questions.update(html=html, url=page.url)
    return html


def on_env(env: Any, config: Any, files: Any) -> Any:
    """After every page is rendered and before files are copied to the site: the drawings not rendering in
    the background, and the flashcards."""
    from urllib.parse import urljoin

    from mkdocs.exceptions import PluginError

    from macros.site import flashcards
    from macros.site.build import drawings, practice_assets

    # Before the site copies its files: every picture not rendering in the background (drawings.start), on one
    # core all of them. The others are written at on_post_build, and each page's sizes at on_page_context.
    try:
        drawings.render_unqueued()
    except drawings.DrawingError as exc:
        raise PluginError(str(exc)) from None
    if "html" not in _questions:
        raise PluginError("flashcards: the questions page (questions.md) was not rendered")
    site_url = config.get("site_url") or ""
    try:
        cards = flashcards.cards(_questions["html"], urljoin(site_url, _questions["url"]), site_url or None)
    except flashcards.FlashcardError as exc:
        raise PluginError(f"flashcards: {exc}") from None
    apkg, csv = (files.get_file_from_path(uri) for uri in DECK_FILES)
    apkg.content_bytes, csv.content_bytes = flashcards.apkg(cards), flashcards.csv_bytes(cards)
    # The review in the page: the same cards, their links left relative to the questions page (review.js).
    review = flashcards.cards(_questions["html"], "", None)
    files.get_file_from_path(practice_assets.REVIEW_CARDS).content_bytes = flashcards.review_js(review)
    return env


# Math typeset at build time (macros/site/build/katex_html.py), by one Node process for the whole build,
# started at on_pre_build and stopped at on_post_build. In on_page_context after the search plugin
# (priority 0) has indexed the page, so the index keeps the TeX, which search_text.py turns into
# words; the flashcards (on_page_content) keep it too, for Anki to typeset.
_math: dict[str, Any] = {}


# The offline copy (`make offline`: Material's offline plugin on) is read from file://. There,
# instant navigation cannot fetch pages (Material says to turn it off offline; left on, its
# document$ never fires), and the plugin's web-worker shim for search would come from unpkg.com,
# another host. So: instant navigation off, the vendored shim instead. At
# on_pre_build, after every plugin's on_config (the plugin adds the shim there).
IFRAME_WORKER_SHIM = "assets/iframe-worker/shim.js"


def on_pre_build(config: Any) -> None:
    # A page that fails to render: one ERROR line naming it, even under -q (mkdocs-macros logs a warning).
    # Here, not in on_config: `macros` is importable once the macros plugin's on_config has put the
    # project on sys.path.
    from mkdocs.exceptions import PluginError

    from macros.site.build import build_errors, jinja_cache
    from macros.site.build.katex_html import MathError, Typesetter

    build_errors.install(os.path.relpath(config.docs_dir, os.path.dirname(config.config_file_path or ".")))
    jinja_cache.install(config.plugins["macros"].env)  # the pages' templates compiled once, not every build
    _glossary_snippet(config)
    plugin = config.plugins.get("material/offline")
    offline = plugin is not None and plugin.config.enabled
    _math["typesetter"] = Typesetter()
    _math["preload_fonts"] = not offline  # from file:// a preload (a CORS request) is refused
    try:
        _math["typesetter"].start()  # Node starts while the pages render
    except MathError as exc:  # no Node, or KaTeX not installed: one line saying what to run
        raise PluginError(str(exc)) from None
    if not offline:
        return
    features = config.theme["features"]
    config.theme["features"] = [f for f in features if not f.startswith("navigation.instant")]
    polyfills = config.extra.get("polyfills", [])
    config.extra["polyfills"] = [IFRAME_WORKER_SHIM if "iframe-worker" in str(p) else p for p in polyfills]


def _glossary_snippet(config: Any) -> None:
    """Write the glossary's abbreviations (macros/site/glossary.py) under .cache/ and have pymdownx.snippets
    append them to every page, so no hand-kept copy of them exists. Here, before any page is converted:
    each page's Markdown instance reads mdx_configs afresh. A bad entry is one line, no traceback."""
    from pathlib import Path

    from mkdocs.exceptions import PluginError

    from macros.site import glossary

    folder = Path(config.config_file_path or "mkdocs.yml").resolve().parent / ".cache" / "glossary"
    try:
        snippet = glossary.write_snippet(folder)
    except glossary.GlossaryError as exc:
        raise PluginError(str(exc)) from None
    # Added to whatever mkdocs.yml sets, not in its place: the file by its absolute path, under its own base.
    snippets = config.mdx_configs.setdefault("pymdownx.snippets", {})
    bases, appended = snippets.get("base_path", ["."]), snippets.get("auto_append", [])
    snippets["base_path"] = [*bases, str(folder)] if str(folder) not in bases else bases
    snippets["auto_append"] = [*appended, str(snippet)] if str(snippet) not in appended else appended
    snippets["check_paths"] = True  # a missing snippet fails the build instead of leaving pages without it


def _typeset(content: str, page_url: str, where: str) -> str:
    """`content` with its math typeset, and KaTeX's stylesheet and fonts linked ahead of the first formula."""
    from mkdocs.exceptions import PluginError
    from mkdocs.utils import get_relative_url

    from macros.site.build import katex_html

    try:
        typeset = _math["typesetter"].typeset(content)
    except katex_html.MathError as exc:
        raise PluginError(f"{where}: {exc}") from None
    if typeset == content:
        return content
    at = katex_html.FORMULA.search(typeset).start()
    links = katex_html.links(lambda path: get_relative_url(path, page_url), _math["preload_fonts"])
    return typeset[:at] + links + typeset[at:]


@event_priority(-100)
def on_page_context(context: Any, page: Any, config: Any, nav: Any) -> Any:
    from mkdocs.exceptions import PluginError

    from macros.site.build import drawings, figures

    # First its drawings' sizes and hints (figures.fill), waiting only for its own pictures, drawn in the
    # background (drawings.start) while the pages were rendered. The search plugin has indexed the page with
    # the hints' tokens; on_post_build fills them in the index.
    try:
        content = figures.fill(page.content)
    except drawings.DrawingError as exc:
        raise PluginError(str(exc)) from None
    page.content = _typeset(content, page.url, page.file.src_uri)
    return context


# Last, once every plugin has written the page: the styles its HTML can use inlined in <head>, the
# stylesheets after the content (macros/site/build/critical_css.py), so that nothing holds the first paint back.
@event_priority(-100)
def on_post_page(output: str, page: Any, config: Any) -> str:
    from pathlib import Path

    from mkdocs.exceptions import PluginError

    from macros.site.build.critical_css import CriticalCssError, inline

    # Not in the PDF's build (PRINT_SITE=true), which nobody reads over a network and whose print-site
    # plugin writes its stylesheet only after the pages.
    print_site = config.plugins.get("print-site")
    if print_site is not None and print_site.config.get("enabled"):
        return output
    try:
        return inline(output, page.file.dest_uri, Path(config["site_dir"]))
    except CriticalCssError as exc:
        raise PluginError(str(exc)) from None


def on_build_error(error: Exception) -> None:
    from macros.site.build import drawings

    drawings.stop()
    if "typesetter" in _math:
        _math.pop("typesetter").close()


# After the search plugin writes the index (priority 0), before anything that copies it (Material's
# offline plugin inlines it into search_index.js at -100): the math in it as text, not LaTeX, and the
# sections that define the key terms tagged with them (search_terms.py). After the print-site plugin
# (0) writes its page from the pages' HTML before on_page_context: its math too.
@event_priority(-50)
def on_post_build(config: Any) -> None:
    from pathlib import Path

    from mkdocs.exceptions import PluginError

    from macros.site.build import drawings
    from macros.site.build.figures import fill
    from macros.site.build.search_terms import SearchTermError, tag_index
    from macros.site.build.search_text import rewrite_index

    try:  # the pictures still rendering in the background, over the empty files that stood in for them
        drawings.write_queued(Path(config["site_dir"]))
    except drawings.DrawingError as exc:
        raise PluginError(str(exc)) from None
    print_page = Path(config["site_dir"]) / "print_page" / "index.html"
    if print_page.is_file():  # made of the pages' HTML before their drawings' sizes were filled in
        html = fill(print_page.read_text(encoding="utf-8"))
        print_page.write_text(_typeset(html, "print_page/", "print_page"), encoding="utf-8")
    _math.pop("typesetter").close()
    index = Path(config["site_dir"]) / "search" / "search_index.json"
    if index.is_file():  # indexed before the drawings' hints were filled in (the tokens' text is JSON-safe)
        index.write_text(fill(index.read_text(encoding="utf-8")), encoding="utf-8")
        rewrite_index(index)
        try:
            tag_index(index)
        except SearchTermError as exc:
            raise PluginError(str(exc)) from None
