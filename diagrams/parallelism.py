"""Parallelism: TP inside a node, PP across nodes, EP for mixture-of-experts."""

from __future__ import annotations

from pathlib import Path

from macros.engine import formulas as f
from macros.engine.model.scenario import dtype_bytes, scenario
from macros.site.build.drawings import shared
from macros.text import fmt

st = shared("_style")

FORMAT = "svg"


def _stages(layers: int, stages: int) -> list[tuple[int, int]]:
    """Contiguous 1-based layer ranges, as even as the count allows."""
    bounds = [round(i * layers / stages) for i in range(stages + 1)]
    return [(bounds[i] + 1, bounds[i + 1]) for i in range(stages)]


def _figures() -> dict:
    tp, tp1 = st.anchor(), st.anchor(batch=1)
    pp = scenario(st.PP_MODEL, st.GPU)  # the smallest power-of-two group that holds it
    node_gpus = st.node_gpus()
    nodes = max(1, pp.gpus // node_gpus)
    ep = scenario(st.EP_MODEL, st.GPU)
    em = ep.model_spec
    per_expert = f.moe_expert_params(em.params, em.active, em.experts, em.experts_per_token)
    experts_per_gpu = em.experts // st.EP_GPUS
    return {
        "tp_group": st.group(tp), "tp_n": tp.gpus, "tp_w": fmt.bytes_(tp.weight_bytes / tp.gpus),
        "link": fmt.bandwidth(tp.gpu_spec.interconnect_bytes_per_s), "tp_b1": fmt.ms(tp1.decode_step_s),
        "model": tp.model_spec.name.split(" (")[0],
        "pp_model": pp.model_spec.name, "pp_w": fmt.bytes_(pp.weight_bytes), "nodes": nodes,
        "node_gpus": node_gpus, "node_mem": fmt.bytes_(node_gpus * pp.gpu_spec.memory_bytes),
        "gpu": pp.gpu_spec.name, "stages": _stages(pp.model_spec.layers, nodes),
        "ep_model": em.name, "experts": em.experts, "k": em.experts_per_token,
        "ep_active": fmt.billion(em.active), "ep_total": fmt.billion(em.params), "ep_gpus": st.EP_GPUS,
        "per_gpu": experts_per_gpu,
        "ep_bytes": fmt.bytes_(experts_per_gpu * per_expert * dtype_bytes(ep.weights_dtype)),
    }


def ALT(variant: str | None = None) -> str:
    x = _figures()
    stages = "; ".join(f"node {i + 1} runs layers {a}–{b}" for i, (a, b) in enumerate(x["stages"]))
    return (
        f"Three ways to split a model. Tensor parallelism, inside one node: {x['model']} on {x['tp_group']}, "
        f"each GPU holding 1/{x['tp_n']} of every layer ({x['tp_w']}), with two all-reduces every layer "
        f"over NVLink at {x['link']} each way; latency improves, the batch-1 decode floor is {x['tp_b1']}. Pipeline "
        f"parallelism, across nodes: {x['pp_model']} needs {x['pp_w']} of weights, more than one node of "
        f"{x['node_gpus']} × {x['gpu']} holds ({x['node_mem']}), so {x['nodes']} nodes each run a stage "
        f"({stages}), tensor-parallel inside, passing activations once per stage boundary; bubbles appear and "
        f"latency does not improve. Expert parallelism, for MoE: {x['ep_model']} has {x['experts']} experts "
        f"and routes each token to {x['k']} ({x['ep_active']} of {x['ep_total']} parameters active); "
        f"{x['per_gpu']} experts per GPU on {x['ep_gpus']} GPUs ({x['ep_bytes']} each), with two all-to-alls "
        "every MoE layer; a popular expert becomes a hot shard."
    )


def render(out: Path, variant: str | None = None) -> None:
    x = _figures()
    dashed = {"style": "dashed", "color": st.FILL["gpu"][1]}
    with st.diagram(out, "TB", compound="true", nodesep="0.22", ranksep="0.35"):
        with st.cluster("tp", st.html("Tensor parallel (TP): inside one node, for latency",
                                      f"{x['model']} on {x['tp_group']}:",
                                      f"1/{x['tp_n']} of every layer per GPU ({x['tp_w']});",
                                      f"two all-reduces every layer over NVLink ({x['link']} each way);",
                                      f"batch-1 decode floor {x['tp_b1']}", left=True), "gpu", rank="same"):
            tp = [st.box(st.html(f"GPU {i}", f"1/{x['tp_n']} of each", "layer"), f"tp{i}", "gpu")
                  for i in reversed(range(x["tp_n"]))][::-1]  # created last-first: dot puts GPU 0 left
            for a, b in zip(tp, tp[1:]):
                a - st.edge(**dashed) - b
        with st.cluster("pp", st.html("Pipeline parallel (PP): across nodes, for capacity",
                                      f"{x['pp_model']}: {x['pp_w']} of weights,",
                                      f"more than one node's {x['node_mem']};",
                                      "one activation transfer per stage boundary;",
                                      "bubbles, which micro-batches fill;", "latency does not improve",
                                      left=True), "net", rank="same"):
            pp = [st.box(st.html(f"Node {i + 1}", f"layers {a}–{b}", f"{x['node_gpus']} × {x['gpu']}",
                                 f"TP={x['node_gpus']} inside"),
                         f"pp{i}", "net") for i, (a, b) in enumerate(x["stages"])]
            for a, b in zip(pp, pp[1:]):
                a >> st.edge("activations") >> b
        with st.cluster("ep", st.html("Expert parallel (EP): for mixture-of-experts",
                                      f"{x['ep_model']}: {x['k']} of {x['experts']} experts per token,",
                                      f"{x['ep_active']} of {x['ep_total']} parameters active;",
                                      "two all-to-alls every MoE layer;", "a popular expert is a hot shard",
                                      left=True), "control"):
            gate = st.box(st.html("Router (gate)", f"picks {x['k']} experts per token"), "gate", "control")
            n = x["per_gpu"]
            ep = [st.box(st.html(f"GPU {i}", f"experts {i * n}–{i * n + n - 1}", x["ep_bytes"]),
                         f"ep{i}", "control")
                  for i in reversed(range(x["ep_gpus"]))][::-1]  # created last-first: dot puts GPU 0 left
            for g in ep:
                gate >> st.edge("tokens" if g is ep[0] else "", style="dashed", color=st.FILL["control"][1]) >> g
        # Stack the three panels: invisible edges between them.
        tp[(len(tp) - 1) // 2] >> st.edge(style="invis") >> pp[0]
        tp[len(tp) // 2] >> st.edge(style="invis") >> pp[-1]
        pp[0] >> st.edge(style="invis") >> gate
        pp[-1] >> st.edge(style="invis") >> gate
