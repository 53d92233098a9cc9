"""The practice problems' engine (macros/engine/problems): at least twelve of each of the fourteen kinds, ids
that name the question and not its numbers, answers from the stated inputs, re-drawn at a rounding knife
edge, near misses that miss by a few percent, and a handful of answers derived here by hand
(test_problems_operations.py derives the cold start, preemption and MoE reads)."""

from __future__ import annotations

import contextlib
import io
import json
import math
from collections import Counter

import pytest

import gpu_math
from macros.engine.lookup import get_gpu, get_model
from macros.engine.problems import BY_NAME, KINDS, latency, problems, settings, solve
from macros.engine.problems.base import Draw, Given, generate, pose, stated
from macros.engine.problems.comms import solve_allreduce, solve_split
from macros.engine.problems.latency import solve_littles, solve_prefill
from macros.engine.problems.operations import solve_cost, solve_fleet, solve_scaling
from macros.engine.problems.roofline import solve_chunk, solve_decode, solve_speculative, whole_chunk_steps
from macros.engine.problems.sizing import solve_memory, solve_placement
from macros.engine.specs import SpecError

ANCHOR = dict(params=70e9, bytes_per_weight=2, layers=80, kv_heads=8, head_dim=128, bytes_per_kv=2, seq_len=4096,
              gpus=4, memory=80e9, reserve=4e9)


def test_twelve_or_more_of_each_of_the_twenty_two_kinds():
    # Fourteen from chapters 1-7, two from each of chapters 8-11.
    counts = Counter(p.kind for p in problems())
    assert set(counts) == {k.name for k in KINDS} and len(KINDS) == 22
    assert min(counts.values()) >= 12 and sum(counts.values()) >= 264
    variants = {(p.kind, p.variant) for p in problems()}
    for pair in [("memory", "near-miss"), ("memory", "just-fits"), ("ttft", "prefill"), ("ttft", "queue"),
                 ("littles-law", "replicas"), ("allreduce", "split"), ("moe-placement", "dp-attention"),
                 ("moe-placement", "tp"), ("decode", "compute"), ("chunked-prefill", "steps"),
                 ("speculative", "ceiling"), ("cold-start", "source"), ("cold-start", "PCIe"), ("preemption", "swap"),
                 ("preemption", "recompute"), ("moe-reads", "few-tokens"), ("moe-reads", "many-tokens"),
                 ("reasoning-kv", "average"), ("reasoning-kv", "reserve"), ("grammar-mask", "speculative"),
                 ("image-tokens", "scaled down"), ("lora-step", "heavy"), ("ep-alltoall", "overlap-pays"),
                 ("ep-alltoall", "overlap-loses"), ("pool-sizing", "handoff"), ("kv-reload", "attention"),
                 ("kv-reload", "latency"), ("long-prefill", "gpus")]:
        assert pair in variants, pair


def test_ids_are_the_kind_and_the_place_within_it():
    ps = problems()
    assert len({p.id for p in ps}) == len(ps)
    for kind in KINDS:
        mine = [p.id for p in ps if p.kind == kind.name]
        assert mine == [f"{kind.name}-{n}" for n in range(1, len(mine) + 1)]


def test_a_problem_stays_the_same_when_its_kind_grows_or_another_kind_changes():
    seed, ps = settings()["seed"], problems()
    memory = BY_NAME["memory"]
    fewer = generate("memory", 4, seed, memory.draw, memory.solve)  # a kind asked for fewer problems ...
    assert [(p.id, p.given, p.answer) for p in fewer] == [(p.id, p.given, p.answer) for p in ps[:4]]
    for kind in KINDS:  # ... and each kind drawn on its own, with no other kind before it, give the same problems
        alone = generate(kind.name, 2, seed, kind.draw, kind.solve)
        assert [(p.id, p.given) for p in alone] == [(p.id, p.given) for p in ps if p.kind == kind.name][:2]


def test_every_answer_is_its_kind_solved_from_the_stated_inputs():
    for p in problems():
        again = solve(p)["answer"]
        assert again == p.answer or math.isclose(again, p.answer, rel_tol=1e-12), p.id
        assert isinstance(p.answer, int | float) and math.isfinite(p.answer), p.id


def test_no_two_problems_of_a_kind_ask_the_same_question():
    for kind in KINDS:
        givens = [p.given for p in problems() if p.kind == kind.name]
        assert len(set(givens)) == len(givens), kind.name


def _over(i: dict) -> float:
    """How far one sequence overflows the replica, from the stated inputs: (N w + g R + copies x 2 L H_kv d_h k s)
    / (g M) - 1, with max(1, g / H_kv) copies of a sequence's KV cache (a rank holds whole KV heads)."""
    copies = max(1, i["gpus"] / i["kv_heads"])
    kv_seq = 2 * i["layers"] * i["kv_heads"] * i["head_dim"] * i["bytes_per_kv"] * i["seq_len"]
    need = i["params"] * i["bytes_per_weight"] + i["gpus"] * i["reserve"] + copies * kv_seq
    return need / (i["gpus"] * i["memory"]) - 1


def test_a_near_miss_misses_by_a_few_percent():
    misses = [p for p in problems() if p.kind == "memory" and p.variant == "near-miss"]
    assert len(misses) >= 4 and len({p.source["model"] for p in misses}) >= 3  # not one replica again and again
    for p in misses:
        assert p.answer == 0 and 0 < _over(p.inputs) <= 0.05, (p.id, _over(p.inputs))
        assert math.isclose(p.solution["over"], _over(p.inputs), rel_tol=1e-9), p.id
    for p in problems():  # and no problem that fits is called a near miss
        assert (p.answer == 0) == (p.variant == "near-miss") or p.kind != "memory", p.id
    # The anchor on one 80 GB GPU at 4,096 tokens: 140 + 4 + 1.342 GB = 145.3 GB against 80: 82% over, no near miss.
    assert math.isclose(_over(dict(ANCHOR, gpus=1)), (140e9 + 4e9 + 327_680 * 4096) / 80e9 - 1)
    assert solve_memory(dict(ANCHOR, gpus=1))["over"] > 0.8


def test_a_draw_on_a_rounding_knife_edge_is_refused():
    # 80 layers x 8 KV heads x 128 x 2 (K and V) x 2 B = 327,680 B per token; 1,000 tokens: 327.68 MB a sequence.
    # One 80 GB GPU, 4 GB reserve, 1 B per weight: budget = 76 GB - N. N = 67.476e9 leaves 8.524 GB, 26.01
    # sequences: 26. Printed to three figures, N = 67.5e9 leaves 8.5 GB, 25.94 sequences: 25. A knife edge.
    base = dict(ANCHOR, seq_len=1000, gpus=1, bytes_per_weight=1)
    edge = tuple(Given(k, 67.476e9 if k == "params" else v, "params" if k == "params" else "count")
                 for k, v in base.items())
    assert solve_memory({g.name: g.value for g in edge})["answer"] == 26
    assert stated(67.476e9) == 67.5e9 and solve_memory(dict(base, params=67.5e9))["answer"] == 25
    assert pose("memory", 1, Draw("fits", edge), solve_memory) is None
    # 67.4e9 is already round: 8.6 GB over 327.68 MB = 26.2, so 26 either way, and the problem stands.
    safe = tuple(Given(g.name, 67.4e9, g.unit) if g.name == "params" else g for g in edge)
    assert pose("memory", 1, Draw("fits", safe), solve_memory).answer == 26


def test_hand_derived_memory_and_placement():
    # The anchor: budget 4 x 80 - 140 - 4 x 4 = 164 GB; KV 327,680 B x 4,096 = 1.342 GB; 164 / 1.342 = 122.2.
    assert solve_memory(ANCHOR)["answer"] == 122
    # 100e9 params at 1 B, 10e9 in attention, on 8 x 80 GB with 4 GB reserve each; 100 kB a token x 10,000 = 1 GB.
    g = dict(params=100e9, bytes_per_weight=1, attention_params=10e9, attention="GQA", kv_heads=8, layers=10,
             kv_per_token=100_000, seq_len=10_000, gpus=8, memory=80e9, reserve=4e9, layout="dp-attention")
    # dp-attention: held 100 + 7 x 10 = 170 GB; budget 640 - 170 - 32 = 438 GB, 54.75 GB a rank: 8 x 54 = 432.
    assert solve_placement(g)["answer"] == 432
    # tp, GQA with 8 heads on 8 ranks: one copy; budget 640 - 100 - 32 = 508 GB: 508 sequences.
    assert solve_placement(dict(g, layout="tp"))["answer"] == 508
    # tp, MLA: the latent on all 8 ranks, 8 GB a sequence: floor(508 / 8) = 63.
    assert solve_placement(dict(g, layout="tp", attention="MLA"))["answer"] == 63


def test_hand_derived_decode_prefill_and_chunk():
    # Anchor at batch 122: 140 GB + 122 x 327,680 B x 4,096 = 303.75 GB over 4 x 3.35 TB/s = 22.67 ms; FLOPs
    # 2 x 70e9 x 122 = 1.708e13 over 4 x 989.4 TFLOP/s = 4.3 ms: memory-bound at 22.7 ms.
    s = solve_decode(dict(ANCHOR, batch=122, bandwidth=3.35e12, peak_flops=989.4e12))
    assert s["verdict"] == "memory"
    assert math.isclose(s["answer"], (140e9 + 122 * 327_680 * 4096) / 13.4e12, rel_tol=1e-12)
    assert round(s["answer"] * 1e3, 1) == 22.7
    # Prefill of 2,000 tokens: 2 x 70e9 x 2,000 = 2.8e14 FLOP over 4 x 989.4e12 = 70.75 ms (the weight read,
    # 140 GB / 13.4 TB/s = 10.4 ms, is shorter); at 40% of the floor: 176.9 ms.
    p = solve_prefill(dict(active_params=70e9, prompt=2000, weights=140e9, gpus=4, peak_flops=989.4e12,
                           bandwidth=3.35e12, efficiency=0.4))
    assert math.isclose(p["answer"], 2.8e14 / 3.9576e15 / 0.4, rel_tol=1e-12)
    # Chunk: 50 ms x 0.5 = 25 ms of floor; 25 ms x 4 x 1e15 / (2 x 70e9) = 714.3 tokens: 714 - 64 decodes = 650.
    c = dict(active_params=70e9, gpus=4, peak_flops=1e15, efficiency=0.5, tpot=0.05, batch=64)
    assert solve_chunk(c)["answer"] == 650


def test_a_long_prompt_s_chunks_count_their_attention():
    # 80 layers, 64 query heads of 128: a step carries 25 ms x 4 x 1e15 = 1e14 FLOPs, the 64 decodes take
    # 2 x 70e9 x 64 = 8.96e12, leaving 9.104e13. An 8,000-token prompt: 2 x 70e9 x 8,000 = 1.12e15, plus causal
    # attention 2 x 80 x 64 x 128 x 8,000 x 8,001 = 1,310,720 x 64,008,000 = 8.39e13: 1.2039e15 / 9.104e13 = 13.22,
    # 14 steps, where chunks of 650 tokens with attention left out would take ceil(8,000 / 650) = 13.
    c = dict(active_params=70e9, gpus=4, peak_flops=1e15, efficiency=0.5, tpot=0.05, batch=64, layers=80,
             query_heads=64, head_dim=128, prompt=8000)
    s = solve_chunk(c)
    assert math.isclose(s["attention"], 1_310_720 * 64_008_000) and math.isclose(s["prefill_flops_per_step"], 9.104e13)
    assert s["answer"] == 14 and s["without_attention"] == 13
    # Whole-token chunks on a toy model (N_a = 1, one layer, one head of dimension 1: a chunk of c after d cached
    # tokens costs 2c + 2((d + c)(d + c + 1) - d(d + 1))) and 40 FLOPs a step for 6 tokens: 3 tokens (30), then 2
    # (2 x 4 + 2 x 16 = 40), then 1 (26): 3 steps, as ceil((2 x 6 + 2 x 6 x 7) / 40) = ceil(2.4) says. At 33 FLOPs
    # a step the count says ceil(96 / 33) = 3, but whole tokens take 3, 1, 1, 1: 4 steps, a draw the kind refuses.
    toy = dict(active_params=1, gpus=1, peak_flops=40, efficiency=1, tpot=1, batch=0, layers=1, query_heads=1,
               head_dim=1, prompt=6)
    assert solve_chunk(toy)["answer"] == 3 and whole_chunk_steps(toy) == 3
    assert solve_chunk(dict(toy, peak_flops=33))["answer"] == 3 and whole_chunk_steps(dict(toy, peak_flops=33)) == 4
    for p in problems():
        if p.kind == "chunked-prefill" and p.variant == "steps":
            i = p.inputs
            assert i["prompt"] <= get_model(p.source["model"]).max_context, p.id  # a prompt the model can take
            assert whole_chunk_steps(i) == p.answer, p.id
            assert p.solution["attention"] > 0 and p.answer >= p.solution["without_attention"], p.id


def test_hand_derived_speculative_and_allreduce():
    # Balance 989.4 / 3.35 = 295.34 FLOP/B; 3 draft tokens are verified as 3 + 1 = 4: ceiling 295.34 / 4 = 73.8.
    ceiling = solve_speculative(dict(peak_flops=989.4e12, bandwidth=3.35e12, draft_tokens=3))
    assert ceiling["verified"] == 4 and math.isclose(ceiling["answer"], 989.4 / 3.35 / 4)
    # Break-even: 8e9 params at 2 B = 16 GB; F = 16 GFLOP; 4 x 16e9 / 295.34 = 216.7 MB, less 67.1 MB of KV
    # = 149.6 MB: 16e9 / 149.6e6 = 106.96.
    b = solve_speculative(dict(params=8e9, bytes_per_weight=2, kv_per_seq=67.1e6, peak_flops=989.4e12,
                               bandwidth=3.35e12, draft_tokens=3))
    assert math.isclose(b["answer"], 16e9 / (4 * 16e9 / (989.4 / 3.35) - 67.1e6), rel_tol=1e-12)
    assert round(b["answer"], 1) == 107.0 and b["verified"] == 4 and math.isclose(b["verify_flops"], 4 * 16e9)


def test_every_verify_step_counts_k_plus_one_tokens():
    """A verify step runs the k drafts and the token after them (serving/speculative.py's verify_batch adds
    b k rows to the b decode rows): every answer is the hand formula at k + 1, not at k."""
    spec = [p for p in problems() if p.kind == "speculative"]
    assert {p.variant for p in spec} == {"break-even", "ceiling"}
    for p in spec:
        i, k = p.inputs, p.inputs["draft_tokens"]
        balance = i["peak_flops"] / i["bandwidth"]
        if p.variant == "ceiling":  # at BF16 (2 bytes a weight, 2 FLOPs a token) intensity is about b (k + 1)
            assert i["peak_flops"] == stated(get_gpu(p.source["gpu"]).bf16_flops, 4), p.id
            by_hand = {n: balance / n for n in (k, k + 1)}
        else:  # W / ((k + 1) 2N / balance - KV)
            w = i["params"] * i["bytes_per_weight"]
            by_hand = {n: w / (n * 2 * i["params"] / balance - i["kv_per_seq"]) for n in (k, k + 1)}
        assert p.solution["verified"] == k + 1, p.id
        assert math.isclose(p.answer, by_hand[k + 1], rel_tol=1e-12), p.id
        assert not math.isclose(p.answer, by_hand[k], rel_tol=0.05), p.id
    # 80 layers: 160 all-reduces; each 2 x 3/4 x 64 x 8,192 x 2 B = 1,572,864 B over 450 GB/s = 3.495 us, + 5 us.
    a = solve_allreduce(dict(layers=80, gpus=4, batch=64, hidden=8192, link=450e9, latency=5e-6))
    assert a["count"] == 160 and math.isclose(a["answer"], 160 * (1_572_864 / 450e9 + 5e-6), rel_tol=1e-12)


def test_the_widest_useful_split():
    g = dict(params=8e9, bytes_per_weight=2, kv_per_seq=1e9, kv_heads=8, layers=32, hidden=4096, batch=1,
             bandwidth=3.35e12, link=450e9, latency=5e-6)
    # Width 1 has no all-reduce; any wider one has 64 x 5 us of fixed cost at least, so a share of 0 allows 1.
    assert solve_split(dict(g, share=0.0))["answer"] == 1
    # 17 GB over 8 x 3.35 TB/s = 634 us of floor; the all-reduces, 64 x (2 x 7/8 x 8,192 B / 450 GB/s + 5 us)
    # = 322 us, are 51% of it: a share of 0.6 allows 8, a share of 0.3 stops short of it.
    assert solve_split(dict(g, share=0.6))["answer"] == 8
    assert solve_split(dict(g, share=0.3))["answer"] < 8


def test_hand_derived_littles_law_scaling_cost_and_fleet():
    # W = 0.5 + (201 - 1) x 0.05 = 10.5 s; L = 10/s x 10.5 s = 105; replicas: ceil(105 / 32 x 1.2) = ceil(3.94) = 4.
    little = dict(rate=10.0, ttft=0.5, output=201, tpot=0.05)
    assert math.isclose(solve_littles(little)["answer"], 105)
    assert solve_littles(dict(little, batch=32, headroom=0.2))["answer"] == 4
    # Signal max(0.9 / 0.75, 0.1 / 0.2) = 1.2; 10 x 1.2 = 12.000000000000002 in floats, 12 replicas, not 13.
    assert solve_scaling(dict(current=10, kv_occupancy=0.9, kv_target=0.75, wait_p95=0.1, wait_target=0.2))[
        "answer"] == 12
    # Cost: 122 / 22.7 ms = 5,374 tokens/s, x 0.4 = 2,150; 4 x $2.50 = $10/h: 10 / 3,600 / 2,150 x 1e6 = $1.29.
    c = solve_cost(dict(price=2.5, gpus=4, batch=122, step=0.0227, efficiency=0.4))["answer"]
    assert math.isclose(c, 10 / 3600 / (122 / 0.0227 * 0.4) * 1e6) and round(c, 2) == 1.29
    # Fleet: 100/s x 500 = 50,000 tokens/s over 5,000 = 10 replicas; 100/s x 0.1 s = 10; 20 x 1.2 = 24; x 4 GPUs.
    assert solve_fleet(dict(rate=100.0, output=500, gpus=4, capacity=5000.0, prefill=0.1, headroom=0.2))[
        "answer"] == 96


def _simulate_cli(i: dict) -> dict:
    argv = ["simulate", "--model", i["model"], "--gpu", i["gpu"], "--gpus", str(i["gpus"]), "--engine", i["engine"],
            "--input-tokens", str(i["prompt"]), "--output-tokens", str(i["output"]), "--rate", repr(i["rate"]),
            "--requests", str(i["requests"]), "--json"]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert gpu_math.main(argv) == 0, argv
    return json.loads(out.getvalue())


def test_a_queueing_answer_is_what_gpu_math_simulate_prints():
    queued = [p for p in problems() if p.kind == "ttft" and p.variant == "queue"]
    assert len(queued) >= 6
    for p in queued:
        assert _simulate_cli(p.inputs)["ttft_s"][latency.PERCENTILE] == pytest.approx(p.answer, rel=1e-12), p.id
        s = p.solution  # the napkin: M/D/1 waits half M/M/1's, rho S / (2 (1 - rho))
        assert math.isclose(s["md1_wait"], s["utilisation"] * s["service"] / (2 * (1 - s["utilisation"])))


def test_a_bad_count_is_one_line_naming_the_file_and_the_entry(tmp_path):
    for counts, says in (('cost = 3\nmemroy = 2', "[counts] unknown kind 'memroy'"),
                         ("cost = -1", "[counts] cost must be a whole number >= 0, got -1"),
                         ("cost = 2.5", "[counts] cost must be a whole number >= 0, got 2.5")):
        path = tmp_path / f"problems-{abs(hash(counts))}.toml"
        path.write_text(f"seed = 1\n[counts]\n{counts}\n")
        with pytest.raises(SpecError) as err:
            settings(path)
        message = str(err.value)
        assert "\n" not in message and path.name in message and says in message, message
