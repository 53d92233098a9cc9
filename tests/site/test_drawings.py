"""Drawings (diagrams/*.py): each renders, the same inputs give the same bytes, a rebuild with
nothing changed renders nothing, a spec change redraws the labels, every drawing is an SVG that
needs nothing else (sharp at any zoom, the same whatever fonts a reader has), and every placed
drawing carries alt text, its size, lazy loading and a link to itself at full size."""

from __future__ import annotations

import dataclasses
import html.parser
import importlib.util
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from conftest import CHANGED_BANDWIDTH, ROOT, build_site, copy_project

from macros.engine import formulas as f
from macros.engine.specs import catalog
from macros.site.build import drawings, figures

ALL = [(name, variant) for name in sorted(drawings.discover()) for variant in drawings.variants(drawings.load(name))]
# Rendered afresh: each drawing module's first and last variant. A module's variants (one roofline per
# GPU) run the same code on other data, so two of them show its output is deterministic and which
# claims it reads; every variant is still built, placed and described in the tests below.
_BY_MODULE: dict[str, list[tuple[str, str | None]]] = {}
for _pair in ALL:
    _BY_MODULE.setdefault(_pair[0], []).append(_pair)
RENDERED = sorted({pair for pairs in _BY_MODULE.values() for pair in (pairs[0], pairs[-1])},
                  key=lambda p: (p[0], p[1] or ""))


# Every form of every rendered pair: the wide one, and the narrow one of a module that draws one.
FORMS = [(*pair, narrow) for pair in ALL for narrow in drawings.forms(drawings.load(pair[0]))]
RENDERED_FORMS = [form for form in FORMS if form[:2] in RENDERED]


def _ids(pair: tuple) -> str:
    return drawings.file_stem(*pair)


class _Images(html.parser.HTMLParser):
    """Every <img> in a page: its attributes, and under "link" the href of the <a> around it."""

    def __init__(self) -> None:
        super().__init__()
        self.images: list[dict[str, str | None]] = []
        self.links: list[str | None] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self.links.append(dict(attrs).get("href"))
        elif tag == "img":
            self.images.append({**dict(attrs), "link": self.links[-1] if self.links else None})

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self.links:
            self.links.pop()


def drawing_images(page: Path) -> list[dict[str, str | None]]:
    parser = _Images()
    parser.feed(page.read_text())
    return [img for img in parser.images if f"{drawings.SITE_DIR}/" in (img.get("src") or "")]


class _Recording(dict):
    """claims.toml's entries, noting every key a render reads."""

    def __init__(self, data: dict) -> None:
        super().__init__(data)
        self.read: set[str] = set()

    def __getitem__(self, key: str):
        self.read.add(key)
        return super().__getitem__(key)


@pytest.mark.parametrize("pair", RENDERED_FORMS, ids=_ids)
def test_a_fresh_render_matches_the_cache_and_reads_only_declared_claims(
        pair: tuple[str, str | None, bool], built_site: Path, tmp_path: Path):
    # The one render test: the build (built_site) filled the cache; rendering again here must give the
    # same bytes (output is deterministic), and must read no claim missing from the drawing's cache key.
    cached, rendered = drawings.cached(*pair)
    assert not rendered, "the build should have left this drawing in the cache"
    cat = catalog()
    recording = _Recording(cat.claims)
    object.__setattr__(cat, "claims", recording)
    try:
        fresh = drawings.render(pair[0], tmp_path, pair[1], pair[2])
    finally:
        object.__setattr__(cat, "claims", dict(recording))
    head = fresh.read_bytes()[:300]
    assert head.startswith(b"\x89PNG\r\n\x1a\n") if fresh.suffix == ".png" else b"<svg" in head
    assert fresh.read_bytes() == cached.read_bytes(), f"{fresh.name} differs between two renders of the same inputs"
    undeclared = recording.read - set(drawings.claims_read(pair[0]))
    assert not undeclared, f"{pair[0]} reads claims it does not declare in CLAIMS: {sorted(undeclared)}"


@pytest.mark.parametrize("pair", ALL, ids=_ids)
def test_alt_text_is_a_description(pair: tuple[str, str | None]):
    alt = drawings.alt_text(*pair)
    assert alt.strip(), f"{_ids(pair)} has no alt text"
    assert "{" not in alt and "None" not in alt, f"{_ids(pair)}: unformatted value in alt text: {alt!r}"


# Labels carry figures from macros: these are derived by hand from the data and the source's inputs.
LABELS = {
    # 4 x H100, TP=4, 4,096-token sequences: budget 4*80 - 140 - 4*4 = 164 GB; KV per sequence
    # 2*80*8*128*2 B * 4,096 = 1.342 GB; 164 / 1.342 = 122.2 -> 122 sequences; one step reads
    # 140 GB + 122 * 1.342 GB = 303.7 GB over 4 * 3.35 TB/s = 22.7 ms.
    "chatgpt_altitude2": ["4 × H100 SXM, TP=4", "≤122 sequences", "≥22.7 ms/step", "1.34 GB", "164 GB"],
    # KV of a 2,000-token prompt: 327,680 B * 2,000 = 655 MB; each of the 4 GPUs sends its quarter over its
    # own 50 GB/s link: 163.84 MB / 50e9 = 3.28 ms (chapter 5.5's text gives the same figure).
    "disaggregation": ["655 MB", "3.28 ms", "each of 4 GPUs"],
    # Static: mean(10, 200, 15, 180) = 101.25 over max 200 = 50.6%.
    "static_vs_continuous": ["101.25 / 200 = 50.6%", "100%"],
    # One block: 16 tokens * 327,680 B = 5,242,880 B = 5.24 MB; 50 tokens -> 4 blocks, 64 - 50 = 14 empty;
    # 1 - 50 / 4,096 = 98.8% of a contiguous reservation unused.
    "paged_kv": ["5.24 MB", "4 blocks", "14 slots", "98.8%"],
    # 60 decodes at 4,096 tokens read 140 + 60 * 1.342 = 220.5 GB -> 16.5 ms over 13.4 TB/s; with a
    # 512-token chunk the step does 2 * 70e9 * 572 = 80.1 TFLOP over 4 * 989.4 TFLOP/s = 20.2 ms; the
    # whole 2,000-token prompt makes it 2 * 70e9 * 2,060 / 3,957.6e12 = 72.9 ms.
    "chunked_prefill": ["16.5 ms", "20.2 ms", "72.9 ms"],
    # One request alone: prefill (2 x 70e9 x 2,000 + 2 x 80 x 64 x 128 x 2,000 x 2,001) / (4 x 989.4e12)
    # = 72.08 ms; a decode step (140e9 + 327,680 x 2,000) / 13.4e12 = 10.50 ms; 8 tokens: 72.08 + 7 x 10.50 = 146 ms.
    "inference_timeline": ["72.1 ms", "10.5 ms", "146 ms"],
    # Per user against aggregate on 4 x H100: batch 1 reads 141.3 GB / 13.4 TB/s = 10.55 ms, 94.8 tokens/s;
    # the max batch 122 gives 5,380 tokens/s. 4 x H200: 408 GB budget / 1.342 GB = 303 sequences. A 50 ms
    # planned TPOT at 40% is a 20 ms floor: (268 - 140) / 1.342 = 95 on H100, (384 - 140) / 1.342 = 181 on H200.
    "latency_throughput": ["94.8 tokens/s", "5,380 tokens/s", "max batch of 303", "up to batch 95",
                           "up to batch 181"],
    # Llama-3.1-405B: 405.85e9 * 2 B = 812 GB > 8 * 80 GB = 640 GB: two nodes of 126 / 2 = 63 layers.
    "parallelism": ["812 GB", "640 GB", "layers 1–63", "35 GB"],
}


@pytest.mark.parametrize("name", sorted(LABELS))
def test_labels_carry_computed_figures(name: str):
    alt = drawings.alt_text(name)
    for figure in LABELS[name]:
        assert figure in alt, f"{name}: expected {figure!r} in {alt!r}"


def test_no_change_rebuild_renders_nothing(built_site: Path):
    assert not any(drawings.cached(*pair)[1] for pair in ALL), "a warm cache rendered again"


def test_a_claim_reaches_only_the_drawings_that_declare_it():
    # nic-bandwidth is read by the disaggregation drawing, the autoscaler design's three (its reservation's page
    # model loads weights from peers) and chapters 10 and 11's alone;
    # paged-block-tokens by the shared helper and allreduce-latency by the engine, so by every
    # drawing; a claim no drawing reads changes no key at all.
    cat = catalog()
    original = cat.claims
    before = {name: drawings.fingerprint(name) for name in drawings.discover()}

    def keys_after(key: str) -> set[str]:
        changed = dict(original)
        changed[key] = dataclasses.replace(original[key], source=original[key].source + " (edited)")
        object.__setattr__(cat, "claims", changed)
        try:
            return {name for name in before if drawings.fingerprint(name) != before[name]}
        finally:
            object.__setattr__(cat, "claims", original)

    unread = next(k for k in original if all(k not in drawings.claims_read(n) for n in before))
    assert keys_after(unread) == set()
    assert keys_after("nic-bandwidth") == {"disaggregation", "design_autoscaler", "design_autoscaler_day",
                                           "forecast_band", "kv_reload", "moe_alltoall"}
    assert keys_after("paged-block-tokens") == set(before)
    assert keys_after("allreduce-latency") == set(before)


def test_a_shared_helper_change_invalidates_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    copy = tmp_path / "diagrams"
    shutil.copytree(ROOT / "diagrams", copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(drawings, "DRAWINGS_DIR", copy)
    drawings._environment_fingerprint.cache_clear()
    before = drawings.fingerprint("paged_kv")
    style = copy / "_style.py"
    style.write_text(style.read_text() + "\n# changed\n")
    drawings._environment_fingerprint.cache_clear()
    try:
        assert drawings.fingerprint("paged_kv") != before
    finally:
        drawings._environment_fingerprint.cache_clear()


def test_a_chapters_own_data_file_is_in_every_drawings_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    # The later chapters keep their data in macros/data/topics/: an edit there must redraw what reads it.
    topics = tmp_path / "macros" / "data" / "topics"
    topics.mkdir(parents=True)
    (topics / "chapter.toml").write_text("[tier]\nbandwidth = 1.0\n")
    monkeypatch.setattr(drawings, "ROOT", tmp_path)
    drawings._environment_fingerprint.cache_clear()
    try:
        before = drawings._environment_fingerprint()
        (topics / "chapter.toml").write_text("[tier]\nbandwidth = 2.0\n")
        drawings._environment_fingerprint.cache_clear()
        assert drawings._environment_fingerprint() != before
    finally:
        drawings._environment_fingerprint.cache_clear()


def test_continuous_schedule_refills_every_slot():
    spec = importlib.util.spec_from_file_location("svc", ROOT / "diagrams" / "static_vs_continuous.py")
    svc = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(svc)
    bars = svc.continuous_schedule((10, 200, 15, 180), 200)
    # By hand: slot 0 runs r0 (10), r4 (10) to 20, r6 (15) to 35, r7 (180) past 200; slot 1 r1 (200);
    # slot 2 r2 (15), r5 (200) past 200; slot 3 r3 (180), r8 (10) to 190, r9 (200) past 200.
    assert [(slot, start) for slot, start, _, _ in bars] == [
        (0, 0), (1, 0), (2, 0), (3, 0), (0, 10), (2, 15), (0, 20), (0, 35), (3, 180), (3, 190)]
    assert svc.busy_fraction(bars, 4, 200) == 1.0
    assert sum(1 for _, start, length, _ in bars if start + length <= 200) == 7


@pytest.mark.parametrize("pair", FORMS, ids=_ids)
def test_every_drawing_is_a_self_contained_svg(pair: tuple[str, str | None, bool]):
    path = drawings.cached(*pair)[0]
    assert path.suffix == ".svg", f"{path.name}: a raster blurs when zoomed; draw SVG"
    svg = path.read_text()
    # Text drawn as outlines (Graphviz's cairo renderer, matplotlib's svg.fonttype = "path"): a <text>
    # element would be set in whatever font the reader has, at other widths than the boxes around it.
    assert "<text" not in svg, f"{path.name} has <text> elements"
    # Icons embedded as data: Graphviz's plain svg renderer links them by their path on this disk.
    links = re.findall(r"""(?:xlink:)?href=["']([^"']*)""", svg)
    outside = [link[:60] for link in links if not link.startswith(("#", "data:"))]
    assert outside == [], f"{path.name} links to files a browser cannot load: {outside}"


def test_the_recorded_font_sizes_are_those_drawn(tmp_path: Path):
    # The sizes the test of legibility multiplies by the page's scale: a chart's texts at 7 and 13 pt,
    # and a Graphviz box at 9 pt with an edge label at 17 pt, record exactly those sizes; pt() raises a
    # chart's 7 pt to the form's smallest, 9.5 pt wide and 10.5 pt narrow.
    style = drawings.shared("_style")
    plt = style.pyplot()
    for narrow, small, expected in ((False, 7, "7 13"), (False, None, "9.5 13"), (True, None, "10.5 13")):
        style.NARROW = narrow
        try:
            fig, ax = style.subplots(plt, 1.0)
            ax.axis("off")
            fig.text(0.1, 0.5, "small", fontsize=small or style.pt(7))
            fig.text(0.5, 0.5, "large", fontsize=13)
            style.save_svg(fig, tmp_path / "chart.svg")
        finally:
            style.NARROW = False
        assert re.search(r'<svg data-font-sizes="([^"]*)"', (tmp_path / "chart.svg").read_text())[1] == expected
    with style.diagram(tmp_path / "graph.svg"):
        first, second = style.box("a box", "a", fontsize="9"), style.box("b", "b", fontsize="9")
        first >> style.edge("an edge", fontsize="17") >> second
    assert re.search(r'<svg data-font-sizes="([^"]*)"', (tmp_path / "graph.svg").read_text())[1] == "9 17"


def test_legible_width_scales_the_viewbox_to_the_smallest_text(tmp_path: Path):
    svg = tmp_path / "a.svg"
    # Smallest text 8 units in a 400-unit-wide viewBox: 12 px text needs 400 * 12 / 8 = 600 px.
    svg.write_text('<svg xmlns="http://www.w3.org/2000/svg" data-font-sizes="8 12" width="400pt" height="100pt" '
                   'viewBox="0 0 400 100"/>')
    assert figures.legible_width(svg, 12) == 600
    # 11 px: 400 * 11 / 8 = 550.
    assert figures.legible_width(svg, 11) == 550
    svg.write_text('<svg xmlns="http://www.w3.org/2000/svg" width="400pt" height="100pt" viewBox="0 0 400 100"/>')
    with pytest.raises(drawings.DrawingError, match="a.svg: no data-font-sizes"):
        figures.legible_width(svg, 12)


def test_css_size_reads_svg_and_png(tmp_path: Path):
    svg = tmp_path / "a.svg"
    # 72 pt is one inch, 96 CSS pixels; 36 pt is 48.
    svg.write_text('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="72pt" height="36pt" '
                   'viewBox="0 0 72 36"></svg>')
    assert drawings.css_size(svg) == (96, 48)
    svg.write_text('<svg xmlns="http://www.w3.org/2000/svg" width="301.5px" height="20"/>')
    assert drawings.css_size(svg) == (302, 20)
    png = tmp_path / "a.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0\0\0\rIHDR" + (640).to_bytes(4, "big") + (480).to_bytes(4, "big"))
    assert drawings.css_size(png) == (640, 480)
    svg.write_text('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"/>')
    with pytest.raises(drawings.DrawingError, match="a.svg: no width and height"):
        drawings.css_size(svg)


def test_placed_drawings_load_lazily_at_their_size_and_open_full_size(built_site: Path):
    placed = 0
    for page in built_site.rglob("*.html"):
        for img in drawing_images(page):
            where = f"{page.relative_to(built_site)}: {img['src']}"
            target = (page.parent / img["src"]).resolve()
            assert img.get("loading") == "lazy", f"{where} loads eagerly"
            assert (img.get("width"), img.get("height")) == tuple(str(v) for v in drawings.css_size(target)), \
                f"{where}: width and height are not the picture's"
            # Each form links to the wide one, to open full size.
            assert img["link"] == img["src"].replace("-narrow.svg", ".svg"), f"{where} does not open full size"
            placed += 1
    assert placed >= len(drawings.discover())


def test_every_placed_drawing_has_alt_text(built_site: Path):
    for page in built_site.rglob("*.html"):
        for img in drawing_images(page):
            assert (img.get("alt") or "").strip(), f"{page.relative_to(built_site)}: {img.get('src')} has no alt"
            target = (page.parent / img["src"]).resolve()
            assert target.is_file(), f"{page.relative_to(built_site)}: {img['src']} is not in the site"


def test_claims_and_tables_render_nothing_and_a_spec_change_redraws(built_site: Path, tmp_path: Path):
    # The copy reuses the warm cache (built_site filled it), so only what changed renders.
    project = copy_project(tmp_path / "project")
    calls = "\n\n".join(f"{{{{ figure('{name}'{', ' + repr(variant) if variant else ''}) }}}}"
                        for name, variant in ALL)
    (project / "docs" / "all-drawings.md").write_text(f"# All drawings\n\n{calls}\n")
    cache = project / ".cache" / "drawings"

    def build(site: str, env: dict[str, str] | None = None) -> tuple[Path, dict[str, str | None], int]:
        before = set(cache.iterdir())
        result = build_site(project, tmp_path / site, env)
        assert result.returncode == 0, f"strict build failed:\n{result.stdout}\n{result.stderr}"
        images = drawing_images(tmp_path / site / "all-drawings" / "index.html")
        assert len(images) == len(FORMS)  # each drawing's wide form, and its narrow one if it has one
        assert all((img.get("alt") or "").strip() for img in images)
        rendered = len(set(cache.iterdir()) - before)
        return tmp_path / site, {Path(img["src"]).stem: img["alt"] for img in images}, rendered

    # Edit a claim no drawing reads, and a table macro (site layer), before the first build of the
    # copy: it renders nothing, so the copied cache was reused and neither edit reached a key.
    claims = project / "macros" / "data" / "claims.toml"
    claims.write_text(claims.read_text() + "\n# an edit\n")
    tables = project / "macros" / "site" / "tables.py"
    tables.write_text(tables.read_text() + "\n# an edit\n")
    first, alts, rendered = build("first")
    assert rendered == 0, "editing claims.toml or a table re-rendered drawings (or the copied cache was not reused)"

    gpus = project / "macros" / "data" / "gpus.toml"
    text = gpus.read_text()
    assert "bandwidth_bytes_per_s = 3.35e12" in text
    # The changed project's bandwidth (conftest), whose H100 runs that build simulates for this one too.
    changed = f"bandwidth_bytes_per_s = {CHANGED_BANDWIDTH!r}"
    gpus.write_text(text.replace("bandwidth_bytes_per_s = 3.35e12", changed, 1))
    # Every drawing's key covers the spec data, so all would redraw: draw one to show it (the others
    # become placeholders), which keeps the test from redrawing the whole set.
    second, new_alts, rendered = build("second", {"DRAWINGS_ONLY": "chatgpt_altitude2"})
    assert rendered == 1, "a spec change must redraw the drawing"
    # Same 303.7 GB per step over 4 * 4.69 TB/s = 16.19 ms, shown to three figures as 16.2 ms.
    assert "≥22.7 ms/step" in alts["chatgpt_altitude2"]
    assert "≥16.2 ms/step" in new_alts["chatgpt_altitude2"]
    picture = f"{drawings.SITE_DIR}/chatgpt_altitude2.svg"
    assert (first / picture).read_bytes() != (second / picture).read_bytes(), \
        "the label changed but the picture did not"


def test_moe_expert_params():
    # Mixtral-8x7B: (46,702,792,704 - 12,879,921,152) / (8 - 2) = 33,822,871,552 / 6 = 5,637,145,258.67
    assert f.moe_expert_params(46_702_792_704, 12_879_921_152, 8, 2) == pytest.approx(5_637_145_258.67)
    # DeepSeek-V3 as napkin numbers: (671e9 - 37e9) / (256 - 8) = 634e9 / 248 = 2.556e9 per expert.
    assert f.moe_expert_params(671e9, 37e9, 256, 8) == pytest.approx(2.5565e9, rel=1e-4)
    # Arrays broadcast: a dense-looking MoE (N = N_a) has empty experts.
    got = f.moe_expert_params(np.array([46_702_792_704, 12_879_921_152]), 12_879_921_152, 8, 2)
    assert got == pytest.approx([5_637_145_258.67, 0])


def test_a_hint_says_the_drawing_opens_full_size_and_when_it_scrolls(built_site: Path):
    # The RAG design's drawing has no narrow form and is 650-odd pt wide: its 12 pt text needs about
    # 650 * 11 / 12 = 596 px on a phone, beyond a 358 px column, so it scrolls there and says so. The
    # batching chart's narrow form fits (its figure carries both forms), so the hint only says "tap".
    rag = (built_site / "designs" / "rag" / "index.html").read_text()
    figure = rag[rag.index('<figure class="drawing"'):]
    assert "drawing__hint--phone\">Wide drawing: scroll it sideways, or tap it" in figure[:figure.index("</figure>")]
    batching = (built_site / "guide" / "batching" / "index.html").read_text()
    figure = batching[batching.index('<figure class="drawing drawing--narrow"'):]
    figure = figure[:figure.index("</figure>")]
    assert "static_vs_continuous-narrow.svg" in figure
    assert "drawing__hint--phone\">Tap the drawing to open it full size." in figure and "scroll" not in figure


def test_no_drawing_token_is_left_in_the_site(built_site: Path):
    # The figure macro writes tokens for what a drawing still being rendered decides (its size, its hints);
    # hooks.on_page_context fills them in as each page is written (and on_post_build the search index's). One
    # left over would publish "@@drawing:".
    pages = [*built_site.rglob("*.html"), built_site / "search" / "search_index.json"]
    left = [page.relative_to(built_site) for page in pages if "@@drawing:" in page.read_text()]
    assert not left, f"unfilled drawing tokens in {left}"
    # A picture still rendering when the site copied its files stood in as an empty file: on_post_build writes it.
    empty = [p.name for p in (built_site / drawings.SITE_DIR).iterdir() if p.stat().st_size == 0]
    assert not empty, f"empty drawings in the site: {empty}"
    assert figures._TOKEN.search(figures._token(("roofline", "h100", False), "width"))  # the pattern finds one
