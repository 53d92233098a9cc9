"""Shared inputs, labels and look for the drawings under diagrams/.

Not a drawing (the name starts with an underscore, so macros.drawings skips it); drawing
modules load it by path, because diagrams/ has no __init__.py (it would shadow the package).
Every figure a label shows comes from macros (scenario, formulas, fmt), so a spec change in
macros/data redraws the pictures; the worked inputs the source uses are set once, here.
Heavy libraries (diagrams, matplotlib) are imported inside the render helpers only: a cached
rebuild loads every drawing module for its alt text and must stay fast.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

from macros.engine.model.scenario import Scenario, scenario
from macros.engine.specs import catalog
from macros.engine.workloads import workloads
from macros.text import fmt

WORKLOADS = workloads()
# The claims (data/claims.toml) these helpers read: part of every drawing's cache key.
CLAIMS = ("nvlink-domain", "paged-block-tokens")

# --- worked inputs: the shared ones come from macros/data/workloads.toml --------------------
MODEL, GPU, GPUS = WORKLOADS["model"], WORKLOADS["gpu"], WORKLOADS["gpus"]  # the chapters' anchor
DECODE_GPU = WORKLOADS["decode_gpu"]  # the decode pool's bandwidth-optimised GPU
PROMPT_TOKENS = WORKLOADS["prompt_tokens"]
CHUNK_TOKENS = WORKLOADS["chunk_tokens"]
DECODE_BATCH = WORKLOADS["decode_batch"]  # sequences decoding while a prompt is prefilled
EXAMPLE_LENGTHS = WORKLOADS["output_lengths"]  # the static-batching output lengths
ARRIVAL_STEP = WORKLOADS["arrival_step"]  # the late arrival, blocked behind the static batch
GENERATED_TOKENS = WORKLOADS["generated_tokens"]  # PagedAttention: reserve the sequence, generate this
KV_OCCUPANCY_TARGET = WORKLOADS["kv_occupancy_target"]
PP_MODEL = "llama-3.1-405b"  # a dense model too big for one node: the pipeline example
EP_MODEL, EP_GPUS = "mixtral-8x7b", 4  # the MoE example, its experts spread over 4 GPUs

# --- colours (drawn on the site's white card, also in dark mode) -------------------------
INK = "#1f2933"
MUTED = "#52606d"
EDGE = "#616e7c"
FILL = {  # role -> (fill, border)
    "net": ("#e3f0fc", "#2c6fb3"),
    "control": ("#efe8fb", "#6b46c1"),
    "store": ("#e6f4ea", "#2f855a"),
    "gpu": ("#fff1e0", "#c05621"),
    "safety": ("#fde8e8", "#c53030"),
    "plain": ("#f5f7fa", "#7b8794"),
}
DECODE_C, PREFILL_C, IDLE_C, SHARED_C = "#3b82c4", "#e07b26", "#b8c2cc", "#7c5cc4"
JOINED_C = "#2f9e6f"  # requests admitted from the queue after the start


# --- scenarios and labels ----------------------------------------------------------------


@cache
def anchor(**kwargs: Any) -> Scenario:
    """The anchor scenario, optionally at another batch or context length."""
    return scenario(MODEL, GPU, gpus=GPUS, **kwargs)


def group(s: Scenario) -> str:
    """'4 × H100 SXM, TP=4'."""
    return f"{s.gpus} × {s.gpu_spec.name}, TP={s.gpus}"


def capacity(s: Scenario) -> str:
    """'≤122 sequences of 4,096 tokens, ≥22.7 ms/step'."""
    return f"≤{s.max_batch} sequences of {fmt.tokens(s.seq_len)}, ≥{fmt.ms(s.decode_step_s)}/step"


def node_gpus() -> int:
    """GPUs sharing one NVLink domain in an HGX node (the claims data's low end)."""
    return int(catalog().claims["nvlink-domain"].low)


def block_tokens() -> int:
    """The KV block size (vLLM's default), from the claims data."""
    return int(catalog().claims["paged-block-tokens"].low)


# --- Graphviz through the diagrams package -------------------------------------------------

def html(title: str, *lines: str, size: int = 12, left: bool = False) -> str:
    """A Graphviz HTML label: a bold title, then smaller grey lines; `left` left-aligns them (a
    cluster's label), each line ending in two spaces so the longest keeps clear of the right border."""
    br, end = ('<br align="left"/>', "&#160;&#160;") if left else ("<br/>", "")
    body = "".join(f'{br}<font point-size="{size}" color="{MUTED}">{_esc(line)}{end}</font>' for line in lines)
    return f"<<b>{_esc(title)}{end}</b>{body}{br if left else ''}>"


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def box(label: str, nodeid: str, role: str = "plain", **attrs: str) -> Any:
    """A text box (a diagrams Node without an icon), filled by its role."""
    from diagrams import Node

    fill, border = FILL[role]
    style = {"shape": "box", "style": "rounded,filled", "fillcolor": fill, "color": border,
             "penwidth": "1.4", "fixedsize": "false", "labelloc": "c", "width": "0", "height": "0",
             "margin": "0.14,0.08", "fontsize": "14", "fontcolor": INK}
    return Node(label, nodeid=nodeid, **{**style, **attrs})


def icon(cls: type, label: str, nodeid: str, **attrs: str) -> Any:
    """A diagrams icon node with an explicit id (deterministic output). The icon scales to the
    node's width, so the node is made taller by one text line per label line, below the icon."""
    width = 0.85
    height = width + 0.15 + 0.27 * (label.count("\n") + 1)
    return cls(label, nodeid=nodeid, **{"fontsize": "13", "fontcolor": INK, "width": str(width),
                                        "height": f"{height:.2f}", **attrs})


def edge(label: str = "", style: str = "", color: str = EDGE, **attrs: str) -> Any:
    from diagrams import Edge

    # A space either side of every line: Graphviz centres the lines of a label beside its edge, so
    # the widest one would otherwise touch the line.
    padded = "\n".join(f" {line} " for line in label.split("\n")) if label else ""
    return Edge(label=padded, style=style, color=color,
                **{"fontsize": "12", "fontcolor": MUTED, "fontname": "DejaVu Sans", "penwidth": "1.3", **attrs})


def same_rank(d: Any, *nodes: Any) -> None:
    """Put nodes (possibly in different clusters) on one rank: needs newrank, set in diagram(). Not in
    the narrow form: there the nodes stack down the page, each below the one it follows."""
    if NARROW:
        return
    d.dot.body.append("\t{rank=same; " + " ".join(f'"{n.nodeid}"' for n in nodes) + "}\n")


def cluster(key: str, label: str, role: str = "plain", **attrs: str) -> Any:
    """A diagrams Cluster named cluster_<key> (a stable id for lhead/ltail), showing `label`."""
    from diagrams import Cluster

    fill, border = FILL[role]
    return Cluster(key, graph_attr={"label": label, "bgcolor": "#fbfcfd", "pencolor": border,
                                    "fontsize": "14", "fontcolor": INK, "style": "rounded",
                                    "margin": "12", "labeljust": "l", **attrs})


@contextlib.contextmanager
def diagram(out: Path, direction: str = "TB", **graph_attr: str) -> Iterator[Any]:
    """A diagrams.Diagram written to exactly `out` (an .svg), with the site's look.

    SVG through Graphviz's cairo renderer (`svg:cairo`), not the package's own output: cairo draws
    the text as glyph outlines, so labels stay crisp at any zoom and look the same whatever fonts the
    reader has, and it embeds the icons as data; the plain svg renderer links each icon by its
    absolute path on this disk, which no browser can load."""
    from diagrams import Diagram

    attrs = {"pad": "0.1", "splines": "spline", "nodesep": "0.35", "ranksep": "0.4",
             "bgcolor": "white", "fontname": "DejaVu Sans", "fontsize": "14",
             "fontcolor": INK, "newrank": "true", **graph_attr}
    # outformat="dot": the package then writes only the Graphviz source, which is cheap; the picture
    # itself is piped through the cairo renderer below.
    with Diagram("", filename=str(out.with_suffix("")), outformat="dot", show=False,
                 direction=direction, graph_attr=attrs,
                 node_attr={"fontname": "DejaVu Sans"},
                 edge_attr={"fontname": "DejaVu Sans", "color": EDGE, "penwidth": "1.3", "arrowsize": "0.8"}) as d:
        yield d
        # quiet, as the package renders: Graphviz notes that an icon's label is wider than the icon.
        svg = d.dot.pipe(format="svg", renderer="cairo", quiet=True)
        # The font size of every label as Graphviz lays it out: xdot's "F size n -name" drawing ops,
        # in points, which are the cairo SVG's user units (no drawing scales its graph by `size`).
        xdot = d.dot.pipe(format="xdot", quiet=True)
        sizes = [float(size) for size in re.findall(rb"\bF (\d+(?:\.\d+)?) \d+ -", xdot)]
        out.write_bytes(record_font_sizes(svg, sizes))
    out.with_suffix(".dot").unlink(missing_ok=True)


def record_font_sizes(svg: bytes, sizes: list[float]) -> bytes:
    """The SVG with the font sizes its text is drawn at, in its own user units, on its root element
    (data-font-sizes="10.5 12 14"). The text is drawn as outlines, so the browser cannot read a font
    size back: the drawing test multiplies these by the scale the page shows the SVG at."""
    if not sizes:
        raise ValueError("no text found to record its size")
    listed = " ".join(f"{size:g}" for size in sorted(set(sizes)))
    return re.sub(rb"<svg\b", f'<svg data-font-sizes="{listed}"'.encode(), svg, count=1)


# --- matplotlib -----------------------------------------------------------------------------

# The form being drawn: False for a laptop's column, True for a phone's (macros/site/build/drawings.py sets
# it around render() for a module with NARROW = True).
NARROW = False
# A chart's smallest type, in points (one user unit of its SVG), and its figure's width. On a 1280 px
# laptop the column is 672 px inside the card's padding: a wide chart saved at most 7 in (504 pt) wide,
# labels included, shows a point at 672 / 504 = 1.33 px or more, so 9.5 pt is at least 12.7 px. On a
# 390 px phone it is 342 px: a narrow chart saved at most 4.5 in (326 pt) wide shows 10.5 pt at 11 px
# or more. The browser walk (tests/browser/walk.py) measures every drawing as placed.
WIDE_INCHES, NARROW_INCHES = 7.2, 4.2
_SMALLEST_PT = {False: 9.5, True: 10.5}


@contextlib.contextmanager
def narrow_only() -> Iterator[None]:
    """Draw the narrow form as the drawing's one form, for every width: for a chart that fits a phone's
    column and reads as well on a laptop's at its natural size (and is drawn once per GPU: a second
    form would double the build's drawing time for nothing)."""
    global NARROW
    before, NARROW = NARROW, True
    try:
        yield
    finally:
        NARROW = before


def pt(size: float) -> float:
    """A chart's font size, raised to the smallest legible one for the form being drawn."""
    return max(size, _SMALLEST_PT[NARROW])


def either(wide: Any, narrow: Any) -> Any:
    """`wide` in the wide form, `narrow` in the narrow one (a legend's columns, say)."""
    return narrow if NARROW else wide


def inches() -> float:
    """The width of the form being drawn, in inches."""
    return NARROW_INCHES if NARROW else WIDE_INCHES


def subplots(plt: Any, height: float, panels: int = 1, narrow_height: float | None = None,
             ratios: list[float] | None = None) -> tuple[Any, Any]:
    """A figure of `panels` charts side by side, WIDE_INCHES wide and `height` tall; in the narrow
    form NARROW_INCHES wide, stacked one above another, each `narrow_height` tall (`height` if None).
    `ratios` are the panels' relative widths (stacked: heights)."""
    if NARROW:
        grid = {"height_ratios": ratios} if ratios else {}
        size = (NARROW_INCHES, (narrow_height or height) * panels)
        return plt.subplots(panels, 1, figsize=size, gridspec_kw=grid)
    grid = {"width_ratios": ratios} if ratios else {}
    return plt.subplots(1, panels, figsize=(inches(), height), gridspec_kw=grid)



def pyplot() -> Any:
    """matplotlib.pyplot set up for byte-stable SVG (fixed hash salt, no date)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({
        "svg.hashsalt": "inference-field-guide",  # fixed ids: same inputs, same bytes
        "svg.fonttype": "path",  # text as paths: no dependence on the reader's fonts
        "font.family": "DejaVu Sans", "font.size": pt(11), "axes.edgecolor": MUTED,
        "xtick.labelsize": pt(10), "ytick.labelsize": pt(10), "legend.fontsize": pt(10),
        "axes.labelcolor": INK, "xtick.color": MUTED, "ytick.color": MUTED, "text.color": INK,
        "axes.spines.top": False, "axes.spines.right": False, "hatch.color": "#9aa5b1",
    })
    return plt


def finish_log_chart(fig: Any, ax: Any, out: Path) -> None:
    """A one-panel chart of measured runs, finished and saved: a faint grid on the decades, and the legend
    beside the chart (below it in the narrow form, where there is no room beside)."""
    ax.grid(True, which="major", color="#e4e7eb", lw=0.6)
    if NARROW:
        fig.legend(*ax.get_legend_handles_labels(), loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=1,
                   fontsize=pt(9), frameon=False)
    else:
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=pt(9), frameon=False)
    fig.tight_layout()
    save_svg(fig, out)


# matplotlib draws a text outline as glyphs of 100 units scaled to its size (text2path.FONT_SCALE):
# `scale(0.11 -0.11)` is 11 pt, and a point is one user unit of its SVG.
_GLYPH_SCALE = re.compile(rb"scale\(([\d.]+) -\1\)")


_SUPERSCRIPT = str.maketrans("-0123456789", "\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079")


def _decade_label(default: Any) -> Any:
    """A log axis's tick label: a decade as 10 with its exponent in superscript digits (10⁻¹, 10³), as
    matplotlib shows it, but as plain text rather than typeset math, which matplotlib parses afresh for every
    chart (its cache lives with each renderer). Any other tick keeps matplotlib's own label."""
    import math

    def label(value: float, position: int | None = None) -> str:
        exponent = math.log10(value) if value > 0 else math.nan
        if math.isfinite(exponent) and abs(exponent - round(exponent)) < 1e-9:
            return "10" + str(round(exponent)).translate(_SUPERSCRIPT)
        return default(value, position)

    return label


def save_svg(fig: Any, out: Path) -> None:
    import io

    import matplotlib.pyplot as plt
    from matplotlib import ticker
    from matplotlib.text import Text

    # A log axis's minor ticks (eight per decade) cost half of a chart's rendering (each is laid out, twice
    # under a tight bounding box) and carry no label: the decades and the grid read without them.
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            if axis.get_scale() == "log":
                axis.set_minor_locator(ticker.NullLocator())
                if type(axis.get_major_formatter()) is ticker.LogFormatterSciNotation:
                    axis.set_major_formatter(ticker.FuncFormatter(_decade_label(axis.get_major_formatter())))
    buffer = io.BytesIO()
    if NARROW:  # titles, labels and notes wrap at the figure's edge rather than widen it
        legends = [*fig.legends, *(ax.get_legend() for ax in fig.axes)]
        in_legends = {id(t) for legend in legends if legend for t in (*legend.get_texts(), legend.get_title())}
        for text in fig.findobj(Text):
            # Not inside a legend (matplotlib cannot wrap there), and not a short text such as a tick's
            # label: wrapping measures every word of a text, a tenth of a second per chart for nothing.
            text.set_wrap(id(text) not in in_legends and len(text.get_text()) > 24)
    fig.savefig(buffer, format="svg", metadata={"Date": None}, bbox_inches="tight", pad_inches=0.08)
    plt.close(fig)
    svg = buffer.getvalue()
    out.write_bytes(record_font_sizes(svg, [float(s) * 100 for s in _GLYPH_SCALE.findall(svg)]))
