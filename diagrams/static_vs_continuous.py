"""Static against continuous batching, drawn from the source's output lengths 10/200/15/180."""

from __future__ import annotations

import heapq
from itertools import cycle
from pathlib import Path

from macros.engine import formulas as f
from macros.site.build.drawings import shared
from macros.text import fmt

st = shared("_style")

FORMAT = "svg"
NARROW = True  # a narrow form for a phone (diagrams/_style.py)

Bar = tuple[int, int, int, int]  # (slot, start step, length in steps, request number)


def continuous_schedule(lengths: tuple[int, ...], horizon: int) -> list[Bar]:
    """Iteration-level scheduling with a backlog: request i has output length lengths[i % n]
    (the example's lengths, repeated); whenever a slot frees, the next request takes it at once.
    Ties go to the lower slot, so the schedule is deterministic."""
    requests = cycle(lengths)
    free = [(0, slot) for slot in range(len(lengths))]  # (step the slot frees, slot)
    bars: list[Bar] = []
    number = 0
    while free[0][0] < horizon:
        start, slot = heapq.heappop(free)
        length = next(requests)
        bars.append((slot, start, length, number))
        heapq.heappush(free, (start + length, slot))
        number += 1
    return bars


def busy_fraction(bars: list[Bar], slots: int, horizon: int) -> float:
    """Slot-steps doing work before `horizon`, over all slot-steps."""
    return sum(min(start + length, horizon) - start for _, start, length, _ in bars) / (slots * horizon)


def _figures() -> dict:
    lengths = st.EXAMPLE_LENGTHS
    horizon = max(lengths)
    bars = continuous_schedule(lengths, horizon)
    return {
        "lengths": lengths, "horizon": horizon, "bars": bars,
        "static": f.static_batch_utilisation(lengths),
        "continuous": busy_fraction(bars, len(lengths), horizon),
        "finished": sum(1 for _, start, length, _ in bars if start + length <= horizon),
        "mean": sum(lengths) / len(lengths),
    }


def ALT(variant: str | None = None) -> str:
    x = _figures()
    lengths = ", ".join(str(n) for n in x["lengths"])
    return (
        f"Two timelines of {len(x['lengths'])} batch slots over {x['horizon']} decode steps. Static batching: "
        f"sequences of {lengths} steps start together and every slot is held until the longest finishes at "
        f"step {x['horizon']}, so the short ones leave their slots idle (hatched) and utilisation is "
        f"{fmt.num(x['mean'], 5)} / {x['horizon']} = {fmt.pct(x['static'])}; {len(x['lengths'])} requests finish. "
        "Continuous batching with a queue of waiting requests of the same lengths: each freed slot takes the "
        f"next request at once, so utilisation is {fmt.pct(x['continuous'])} and {x['finished']} requests "
        f"finish in the same {x['horizon']} steps."
    )


def render(out: Path, variant: str | None = None) -> None:
    plt = st.pyplot()
    x = _figures()
    lengths, horizon, n = x["lengths"], x["horizon"], len(x["lengths"])
    arrival = st.ARRIVAL_STEP
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(st.inches(), 5.4), sharex=True,
                                      gridspec_kw={"hspace": st.either(0.62, 1.1), "height_ratios": (n + 1, n)})
    label = {"va": "center", "fontsize": st.pt(10), "bbox": {"facecolor": "white", "edgecolor": "none", "pad": 1}}
    for slot, length in enumerate(lengths):
        top.barh(slot, length, height=0.62, color=st.DECODE_C)
        top.barh(slot, horizon - length, left=length, height=0.62, color="white", edgecolor=st.IDLE_C,
                 hatch="///", linewidth=0.8)
        text = f"{length} steps" + (f", then idle {horizon - length}" if length < horizon else "")
        if length < horizon / 2:  # a short bar: the label goes on the idle stretch after it
            top.text(length + 2, slot, text, color=st.INK, **label)
        else:
            top.text(length / 2, slot, text, ha="center", va="center", color="white", fontsize=st.pt(10))
    # The late arrival: it cannot start until the whole batch returns.
    top.annotate("", xy=(horizon, n), xytext=(arrival, n),
                 arrowprops={"arrowstyle": "->", "color": st.PREFILL_C, "lw": 1.6, "linestyle": "--"})
    top.plot([arrival], [n], marker="o", color=st.PREFILL_C)
    top.text(arrival + 4, n - 0.12, f"request arriving at step {arrival} waits until step {horizon}",
             color=st.PREFILL_C, ha="left", **{**label, "va": "bottom"})
    top.set_title(f"Static batching: every slot waits for the longest\nutilisation {fmt.num(x['mean'], 5)} / "
                  f"{horizon} = {fmt.pct(x['static'])}  ·  {n} requests done", loc="left", fontsize=st.pt(11))
    top.set_yticks(range(n + 1), [f"slot {i}" for i in range(n)] + ["waiting"])

    for slot, start, length, number in x["bars"]:
        width = min(start + length, horizon) - start
        colour = st.DECODE_C if number < n else st.JOINED_C
        bottom.barh(slot, width, left=start, height=0.62, color=colour, edgecolor="white", linewidth=1.5)
        if width >= 18:
            text = f"r{number}: {length}" if width >= 45 else f"r{number}"
            bottom.text(start + width / 2, slot, text, ha="center", va="center", fontsize=st.pt(10), color="white")
    bottom.set_title("Continuous batching: a freed slot takes the next request (green) at once\n"
                     f"utilisation {fmt.pct(x['continuous'])}  ·  {x['finished']} requests done in the same "
                     f"{horizon} steps", loc="left", fontsize=st.pt(11))
    bottom.set_yticks(range(n), [f"slot {i}" for i in range(n)])

    for ax in (top, bottom):
        ax.invert_yaxis()
        ax.set_xlim(0, horizon)
        ax.tick_params(axis="y", length=0)
        ax.tick_params(axis="x", labelbottom=True)
    bottom.set_xlabel("decode step")
    st.save_svg(fig, out)
