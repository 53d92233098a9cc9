"""Prefill/decode disaggregation: a prefill pool, a decode pool and the KV transfer between them."""

from __future__ import annotations

from pathlib import Path

from macros.engine import formulas as f
from macros.engine.model.scenario import scenario
from macros.engine.specs import catalog
from macros.site.build.drawings import shared
from macros.site.pages._shared import kv_transfer_s
from macros.text import fmt

# The claims (data/claims.toml) this drawing reads: part of its cache key.
CLAIMS = ("nic-bandwidth",)

st = shared("_style")

FORMAT = "svg"


def _figures() -> dict[str, str]:
    p = st.anchor(seq_len=st.PROMPT_TOKENS)  # the prefill replica, one prompt at a time
    d = scenario(st.MODEL, st.DECODE_GPU, gpus=st.GPUS)  # the same group size, bandwidth-optimised GPUs
    nic = catalog().claims["nic-bandwidth"]  # one network port per GPU: what the KV cache crosses
    return {
        "p_group": st.group(p), "prompt": f"{fmt.count(st.PROMPT_TOKENS)}-token",
        "prefill": fmt.ms(p.prefill_s),
        "p_rate": fmt.tokens_per_s(f.tokens_per_s(st.PROMPT_TOKENS, p.prefill_s)),
        "kv": fmt.bytes_(p.kv_bytes_per_seq), "kv_token": fmt.count(p.kv_bytes_per_token) + " B",
        # each GPU of the group sends the share it holds over its own link, all at once: the same
        # function, on the same inputs, as chapter 5.5's text (macros/site/pages/toolkit.py)
        "transfer": fmt.ms(kv_transfer_s(p, p.kv_bytes_per_seq, nic.low)), "links": str(p.gpus),
        "nic": nic.text or fmt.bandwidth(nic.low),
        "tokens": fmt.count(st.PROMPT_TOKENS),
        "d_group": st.group(d), "d_capacity": st.capacity(d),
        "d_bandwidth": fmt.bandwidth(d.gpu_bandwidth_bytes_per_s),
        "p_bandwidth": fmt.bandwidth(p.gpu_bandwidth_bytes_per_s),
    }


def ALT(variant: str | None = None) -> str:
    x = _figures()
    return (
        "Disaggregated prefill and decode: the router sends each new prompt to a prefill pool "
        f"(compute-optimised, sized by the prompt-token rate; one replica of {x['p_group']} prefills a "
        f"{x['prompt']} prompt in at least {x['prefill']}, at most {x['p_rate']}); the prompt's KV cache, "
        f"{x['kv']} ({x['kv_token']} per token × {x['tokens']} tokens), crosses the network (at least "
        f"{x['transfer']}, each of {x['links']} GPUs sending its share over its own {x['nic']} link) to a decode "
        "pool (bandwidth-optimised, sized by concurrent sequences; one replica of "
        f"{x['d_group']} at {x['d_bandwidth']} per GPU holds {x['d_capacity']}), which streams the tokens "
        "back. Each pool scales and is bought separately; the price is the KV transfer per request and a "
        "more complex control plane, so it wins only when the transfer costs less than the interference "
        "it removes."
    )


def render(out: Path, variant: str | None = None) -> None:
    from diagrams.onprem.client import User

    x = _figures()
    with st.diagram(out, "TB", ranksep="0.5", nodesep="0.5", compound="true"):
        client = st.icon(User, "client", "client")
        router = st.box(st.html("Router", "new prompt → prefill pool", "token stream ← decode pool"),
                        "router", "control")
        with st.cluster("prefill", st.html("Prefill pool", "compute-optimised,",
                                           "sized by prompt tokens/s", left=True), "gpu"):
            prefill = st.box(st.html("Prefill replica", x["p_group"], f"{x['prompt']} prompt",
                                     f"≥{x['prefill']}, ≤{x['p_rate']}"), "prefill", "gpu")
        with st.cluster("decode", st.html("Decode pool", "bandwidth-optimised,",
                                          "sized by concurrent sequences", left=True), "net"):
            decode = st.box(st.html("Decode replica", x["d_group"], f"{x['d_bandwidth']} per GPU",
                                    *x["d_capacity"].split(", ")), "decode", "net")
        note = st.box(st.html("Wins when the transfer costs", "less than the interference it",
                              "removes: that depends on the", "prompt/output length mix"),
                      "note", "plain", style="rounded,dashed", fontsize="13")
        client >> st.edge("prompt") >> router
        router >> st.edge("prompt", lhead="cluster_prefill") >> prefill
        transfer = (f"KV transfer: {x['kv']}\nper {x['prompt']} prompt,\n"
                    f"≥{x['transfer']} over\n{x['links']} × {x['nic']}")
        prefill >> st.edge(transfer,
                           color=st.PREFILL_C, penwidth="2.4", fontcolor=st.INK, lhead="cluster_decode",
                           ltail="cluster_prefill") >> decode
        decode >> st.edge("token stream", style="dashed", constraint="false", ltail="cluster_decode") >> router
        decode >> st.edge(style="invis") >> note
