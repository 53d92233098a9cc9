"""Design ChatGPT, altitude 2: the serving layer opened, with the anchor's memory budget and floor."""

from __future__ import annotations

from pathlib import Path

from macros.site.build.drawings import shared
from macros.text import fmt

st = shared("_style")

FORMAT = "svg"


def _figures() -> dict[str, str]:
    s, p = st.anchor(), st.anchor(seq_len=st.PROMPT_TOKENS)
    g = s.gpus
    return {
        "group": st.group(s), "capacity": st.capacity(s), "gpu": s.gpu_spec.name,
        "batch": str(s.max_batch), "floor": fmt.ms(s.decode_step_s),
        "per_user": fmt.tokens_per_s(s.decode_tokens_per_s_per_user),
        "aggregate": fmt.tokens_per_s(s.decode_tokens_per_s),
        "weights": fmt.bytes_(s.weight_bytes), "kv_token": fmt.count(s.kv_bytes_per_token) + " B",
        "kv_seq": fmt.bytes_(s.kv_bytes_per_seq), "seq_len": f"{fmt.count(s.seq_len)}-token",
        "budget": fmt.bytes_(s.kv_budget_bytes), "block": fmt.tokens(st.block_tokens()),
        "prompt": f"{fmt.count(st.PROMPT_TOKENS)}-token", "prefill": fmt.ms(p.prefill_s),
        "chunk": f"{fmt.count(st.CHUNK_TOKENS)}-token",
        "memory": fmt.bytes_(s.gpu_spec.memory_bytes), "bandwidth": fmt.bandwidth(s.gpu_bandwidth_bytes_per_s),
        "w_gpu": fmt.bytes_(s.weight_bytes / g), "kv_gpu": fmt.bytes_(s.kv_budget_bytes / g),
        "r_gpu": fmt.bytes_(s.reserve_bytes / g), "link": fmt.bandwidth(s.gpu_spec.interconnect_bytes_per_s),
        "gpus": str(g),
    }


def ALT(variant: str | None = None) -> str:
    x = _figures()
    return (
        "The serving layer opened, top to bottom: requests from the router reach the scheduler, which every "
        "iteration admits or rejects work, mixes prefill chunks with decodes, preempts when the KV cache runs "
        "out and honours priority classes; continuous batching keeps up to "
        f"{x['batch']} sequences in flight. Prefill is compute-bound: a {x['prompt']} prompt takes at least "
        f"{x['prefill']} on the group, so it is fed in {x['chunk']} chunks. Decode is memory-bound: each step "
        f"reads {x['weights']} of weights plus every sequence's KV, at least {x['floor']} per step, so at "
        f"most {x['per_user']} per user and {x['aggregate']} in all. The paged KV cache holds "
        f"{x['kv_token']} per token, {x['kv_seq']} per {x['seq_len']} sequence, in blocks of {x['block']}, "
        f"within a {x['budget']} budget, and shares prefix blocks copy-on-write as the prefix cache. "
        f"Underneath is the tensor-parallel group, {x['group']}, "
        f"{x['capacity']}: each {x['gpu']} has {x['memory']} holding {x['w_gpu']} of weights, {x['kv_gpu']} "
        f"of KV cache and a {x['r_gpu']} reserve, reads at {x['bandwidth']} and joins two all-reduces every "
        f"layer over NVLink at {x['link']} each way."
    )


def render(out: Path, variant: str | None = None) -> None:
    x = _figures()
    group_label = st.html(f"Tensor-parallel group: {x['group']}",
                          f"{x['memory']} and {x['bandwidth']} per GPU;",
                          f"two all-reduces every layer over NVLink ({x['link']} each way)", x["capacity"],
                          size=13, left=True)
    with st.diagram(out, "TB", compound="true", ranksep="0.35", nodesep="0.25") as d:
        router = st.box(st.html("from the prefix-aware router"), "router", "plain", fontsize="12")
        scheduler = st.box(st.html("Scheduler (every iteration)", "admit or reject;",
                                   "prefill chunks vs decodes;", "preempt when KV runs out",
                                   "(swap or recompute);", "priority classes"), "scheduler", "control")
        batching = st.box(st.html("Continuous batching", "iteration-level: finished",
                                  "sequences leave, waiting", f"ones join; ≤{x['batch']} in flight"),
                          "batching", "control")
        prefill = st.box(st.html("Prefill", "compute-bound", f"{x['prompt']} prompt", f"≥{x['prefill']};",
                                 f"fed in {x['chunk']}", "chunks"), "prefill", "gpu")
        decode = st.box(st.html("Decode", "memory-bound", f"reads {x['weights']} of", "weights + all KV;",
                                f"≥{x['floor']}/step", f"≤{x['per_user']} per user,",
                                f"≤{x['aggregate']} in all"),
                        "decode", "gpu")
        kv = st.box(st.html("Paged KV cache", "in HBM, split over the group",
                            f"{x['kv_token']} per token", f"{x['kv_seq']} per {x['seq_len']} sequence",
                            f"blocks of {x['block']}, on demand", f"budget {x['budget']}",
                            "prefix cache: shared blocks,", "copy-on-write"), "kv", "store")
        with st.cluster("tp", group_label, "gpu") as group:
            gpus = [st.box(st.html(f"GPU {i}", f"{x['w_gpu']} weights", f"{x['kv_gpu']} KV",
                                   f"{x['r_gpu']} reserve"), f"gpu{i}", "gpu", fontsize="13")
                    for i in range(int(x["gpus"]))]
        # The group as a ring, two GPUs per row: the all-reduce passes round it every layer.
        rows = [gpus[i:i + 2] for i in range(0, len(gpus), 2)]
        for row in rows:
            st.same_rank(d, *row)
            for a, b in zip(row, row[1:]):  # keeps GPU 0 left of GPU 1 in the row
                a >> st.edge(style="invis") >> b
        for upper, lower in zip(rows, rows[1:]):  # and each row below the one before
            for a, b in zip(upper, lower):
                a >> st.edge(style="invis") >> b
        router >> st.edge() >> scheduler >> st.edge() >> batching
        batching >> st.edge() >> prefill
        batching >> st.edge() >> decode
        prefill >> st.edge("writes the\nprompt's KV") >> kv
        decode >> st.edge("reads all,\nappends 1") >> kv
        kv >> st.edge(f"1/{len(gpus)} per GPU", lhead=group.name) >> gpus[0]
        ring = list(dict.fromkeys([row[0] for row in rows] + [row[-1] for row in reversed(rows)]))
        for a, b in zip(ring, ring[1:] + ring[:1]):  # down the left column, up the right one
            a - st.edge(style="dashed", color=st.FILL["gpu"][1], constraint="false") - b
