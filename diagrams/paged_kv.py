"""PagedAttention: block tables mapping logical KV blocks to scattered physical blocks, with
copy-on-write sharing between two samples of one prompt."""

from __future__ import annotations

from pathlib import Path

from macros.engine import formulas as f
from macros.site.build.drawings import shared
from macros.text import fmt

st = shared("_style")

FORMAT = "svg"
NARROW = True  # a narrow form for a phone (diagrams/_style.py)

# The example, chosen by hand to show scattered blocks: two samples of one prompt that fills
# blocks 0-1 and part of block 2. Both tables pointed block 2 at physical 12 until B wrote its
# first token there; that shared, partly filled block was copied to 18 first (copy-on-write).
TABLES = {"A": (7, 2, 12, 5), "B": (7, 2, 18, 14)}
COPIED_FROM = {18: 12}
OTHERS = (0, 3, 4, 8, 10, 13, 16, 17, 19, 22)  # blocks held by other sequences
POOL_COLUMNS, POOL_ROWS = 6, 4
OWN = {"A": st.DECODE_C, "B": st.JOINED_C}
# Where things go, in data units (a block's pitch is 7.4): wide, the sequences left of the pool with
# the legend and notes below them; narrow (a phone), everything stacked, one legend entry a line.
LAYOUT = {
    False: {"xlim": (0, 100), "ylim": (-9, 57), "pool": (54.0, 46.0), "seq_y": (41.0, 19.0), "legend": (10.5, 4.2),
            "per_row": (2, 3), "notes_y": 1.2},
    True: {"xlim": (0, 50), "ylim": (4, 117), "pool": (2.0, 72.0), "seq_y": (106.0, 17.0), "legend": (37.0, 3.3),
           "per_row": (1, 1, 1, 1, 1), "notes_y": 20.0},
}


def _figures() -> dict[str, str]:
    s = st.anchor()
    block = st.block_tokens()
    block_bytes = block * s.kv_bytes_per_token
    used = st.GENERATED_TOKENS
    blocks = int(f.blocks_needed(used, block))
    return {
        "block": str(block), "kv_token": fmt.count(s.kv_bytes_per_token) + " B",
        "block_bytes": fmt.bytes_(block_bytes), "per_gpu": fmt.bytes_(block_bytes / s.gpus),
        "gpus": str(s.gpus), "model": s.model_spec.name.split(" (")[0], "used": str(used),
        "blocks": str(blocks), "empty": str(blocks * block - used), "reserved": fmt.count(s.seq_len),
        "waste": fmt.pct(f.reserved_waste_fraction(s.seq_len, used)),
    }


def ALT(variant: str | None = None) -> str:
    x = _figures()
    a, b = (", ".join(str(p) for p in TABLES[k]) for k in "AB")
    return (
        "PagedAttention's block tables. Two samples, A and B, of one prompt each have four logical KV blocks "
        f"of {x['block']} tokens. A's block table maps them to physical blocks {a}; B's to {b}. Physical "
        "blocks 7 and 2 hold the shared prompt once, with a reference count of 2. Logical block 2 of both "
        "sequences pointed at physical 12 until B wrote into it; copy-on-write gave B its own copy, block 18. The "
        "physical pool is not contiguous: other sequences' blocks and free blocks sit in between. One block "
        f"of {x['model']} is {x['block']} × {x['kv_token']} = {x['block_bytes']} ({x['per_gpu']} on each of "
        f"{x['gpus']} GPUs); a {x['used']}-token output takes {x['blocks']} blocks and leaves {x['empty']} "
        f"slots empty, where a contiguous {x['reserved']}-token reservation would leave {x['waste']} unused."
    )


def render(out: Path, variant: str | None = None) -> None:
    plt = st.pyplot()
    from matplotlib.patches import FancyArrowPatch, Rectangle

    x = _figures()
    at = LAYOUT[st.NARROW]
    (left, right), (bottom, top) = at["xlim"], at["ylim"]
    fig, ax = st.subplots(plt, 4.55, narrow_height=st.inches() * (top - bottom) / (right - left))
    fig.subplots_adjust(0, 0, 1, 1)  # the axes fill the figure: one data unit is its width / 100 (or 50)
    ax.set_xlim(left, right)
    ax.set_ylim(bottom, top)
    ax.set_aspect("equal")
    ax.axis("off")
    size, step = 6.5, 7.4  # a block's side and pitch, in data units
    shared = {p for p in TABLES["A"] if p in TABLES["B"]}

    def square(x0: float, y0: float, colour: str, text: str, ink: str = "white", edge: str = "white",
               dashed: bool = False, refs: int = 1) -> None:
        ax.add_patch(Rectangle((x0, y0), size, size, facecolor=colour, edgecolor=edge, linewidth=1.2,
                               linestyle="--" if dashed else "-"))
        ax.text(x0 + size / 2, y0 + size / 2, text, ha="center", va="center", fontsize=st.pt(10.5), color=ink)
        if refs > 1:  # the reference count of a shared block
            ax.text(x0 + size - 0.4, y0 + size - 0.4, f"×{refs}", ha="right", va="top", fontsize=st.pt(8), color=ink)

    # The physical pool, right: a grid numbered row by row, allocated wherever a block was free.
    pool_x, pool_top = at["pool"]
    where: dict[int, tuple[float, float]] = {}
    for n in range(POOL_COLUMNS * POOL_ROWS):
        x0, y0 = pool_x + (n % POOL_COLUMNS) * step, pool_top - (n // POOL_COLUMNS) * step
        where[n] = (x0, y0)
        if n in shared:
            square(x0, y0, st.SHARED_C, str(n), refs=2)
        elif n in TABLES["A"]:
            square(x0, y0, OWN["A"], str(n))
        elif n in TABLES["B"]:
            square(x0, y0, OWN["B"], str(n), edge=st.INK if n in COPIED_FROM else "white",
                   dashed=n in COPIED_FROM)
        elif n in OTHERS:
            square(x0, y0, st.IDLE_C, str(n), ink=st.INK)
        else:
            square(x0, y0, "white", str(n), ink=st.MUTED, edge=st.IDLE_C)
    ax.text(pool_x, pool_top + size + 2, "physical KV blocks in GPU memory", fontsize=st.pt(11), color=st.INK)

    # The two sequences, left: logical blocks, and the block table entry under each.
    for i, name in enumerate("AB"):
        y0 = at["seq_y"][0] - i * at["seq_y"][1]
        ax.text(0, y0 + size + 2, f"sequence {name} (sample {i + 1} of one prompt)", fontsize=st.pt(11), color=st.INK)
        ax.text(0, y0 + size / 2, "logical", fontsize=st.pt(10), color=st.MUTED, va="center")
        ax.text(0, y0 - 3, "table", fontsize=st.pt(10), color=st.MUTED, va="center")
        for j, physical in enumerate(TABLES[name]):
            x0 = 14.0 + j * step
            colour = st.SHARED_C if physical in shared else OWN[name]
            square(x0, y0, colour, str(j))
            ax.text(x0 + size / 2, y0 - 3, f"→ {physical}", ha="center", va="center", fontsize=st.pt(10), color=st.INK)
    # Copy-on-write: B's block 2 pointed at 12, shared with A, until B wrote into it.
    (copy, original), = COPIED_FROM.items()
    (cx, cy), (ox, oy) = where[copy], where[original]
    ax.add_patch(FancyArrowPatch((ox + size / 2, oy), (cx + size / 2, cy + size), arrowstyle="-|>",
                                 mutation_scale=9, color=st.INK, linewidth=1.2))
    ax.text(pool_x, cy - 1.6, f"copy-on-write: {copy} is B's copy of {original},\nmade when B first wrote into "
            "that\nshared, partly filled block", fontsize=st.pt(10), color=st.INK, va="top", linespacing=1.3)

    keys = [(st.SHARED_C, "shared prompt, stored once (×2: references)"), (OWN["A"], "A's own"),
            (OWN["B"], "B's own"), (st.IDLE_C, "other sequences"), ("white", "free")]
    rows = [keys[sum(at["per_row"][:k]):sum(at["per_row"][:k + 1])] for k in range(len(at["per_row"]))]
    for row, items in enumerate(rows):
        lx, ly = 0.0, at["legend"][0] - row * at["legend"][1]
        for colour, text in items:
            ax.add_patch(Rectangle((lx, ly - 1.3), 2.6, 2.6, facecolor=colour, edgecolor=st.IDLE_C, linewidth=0.8))
            ax.text(lx + 3.6, ly, text, fontsize=st.pt(10), va="center", color=st.INK)
            lx += 3.6 + 0.98 * len(text) + 4
    notes = (f"one block: {x['block']} tokens × {x['kv_token']} = {x['block_bytes']} of {x['model']} KV "
             f"({x['per_gpu']} per GPU at TP={x['gpus']})",
             f"a {x['used']}-token output fills {x['blocks']} blocks and leaves {x['empty']} slots empty;",
             f"reserved contiguously for {x['reserved']} tokens, {x['waste']} would sit unused")
    if st.NARROW:  # one text, wrapped at the figure's edge
        ax.text(0, at["notes_y"], "\n".join(notes), fontsize=st.pt(10), color=st.INK, va="top", linespacing=1.3)
    for k, text in enumerate(() if st.NARROW else notes):
        ax.text(0, at["notes_y"] - k * 3.7, text, fontsize=st.pt(10), color=st.INK, va="center")
    st.save_svg(fig, out)
