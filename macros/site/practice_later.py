"""The practice problems of chapters 8 and 9 as text (macros/site/practice.py joins every chapter's): each
kind's question from its stated inputs and its worked steps; and the shared helpers of the later chapters."""

from __future__ import annotations

from collections.abc import Callable

from ..engine.problems import Problem
from ..text import fmt
from . import practice_ops, practice_questions

FULL = 6  # significant figures a stated input is printed to: more than it has, so nothing is rounded away


def plural(n: float, word: str) -> str:
    """"1 GPU", "4 GPUs", "1 byte", "2 bytes": a count with its noun."""
    return f"{fmt.num(n, FULL)} {word}{'' if n == 1 else 's'}"


# --- chapter 8: reasoning requests held at once, the token mask against the decode step ---------------


def _reasoning_kv_q(p: Problem, v: dict[str, str]) -> str:
    admits = ("admits requests by the KV cache they hold now, so that on average each holds its prompt plus half "
              "its output (the replica full of requests at every stage of their decode)"
              if p.inputs["mode"] == "average" else
              "reserves each request's whole output on admission, so that no request is ever preempted")
    return (f"Take a reasoning model of {v['params']} parameters stored at {v['bytes_per_weight']} per weight, with "
            f"{practice_questions._gqa(v)}. It runs "
            f"{practice_questions._tp(p, v)}, with {v['memory']} of memory per GPU, keeping {v['reserve']} per GPU "
            f"for activations and overhead. Each request has a prompt of {v['prompt']} and decodes {v['output']} "
            f"(the hidden thinking and the answer). The engine {admits}. How many requests run at once?")


def _reasoning_kv_s(p: Problem, v: dict[str, str]) -> list[tuple[str, str]]:
    s, i = p.solution, p.inputs
    held = (f"{fmt.count(i['prompt'])} + {fmt.count(i['output'])} / 2 = {fmt.num(s['mean_tokens'])} tokens on average"
            if i["mode"] == "average" else
            f"{fmt.count(i['prompt'])} + {fmt.count(i['output'])} = {fmt.count(s['end_tokens'])} tokens, reserved")
    kv, tokens = (s["mean_seq"], s["mean_tokens"]) if i["mode"] == "average" else (s["end_seq"], s["end_tokens"])
    other = (f"reserving the whole output instead, it would run {s['reserved']:,}" if i["mode"] == "average" else
             f"admitting by the KV in use instead, it would run {s['average']:,} on average")
    return [("memory", f"{i['gpus']} × {v['memory']} = {fmt.bytes_(s['total_memory'])}"),
            ("weights", f"{v['params']} × {v['bytes_per_weight']} = {fmt.bytes_(s['weights'])}"),
            ("KV budget", f"{fmt.bytes_(s['total_memory'])} − {fmt.bytes_(s['weights'])} − "
                          f"{fmt.bytes_(s['reserve_total'])} = {fmt.bytes_(s['budget'])}"),
            ("KV per token", f"2 × {i['layers']} × {i['kv_heads']} × {i['head_dim']} × {v['bytes_per_kv']} = "
                             f"{fmt.count(s['kv_per_token'])} B"),
            ("tokens a request holds", held),
            ("KV per request", f"{fmt.count(s['kv_per_token'])} B × {fmt.num(tokens)} = {fmt.bytes_(kv)}"),
            ("KV copies", f"max(1, {i['gpus']} / {i['kv_heads']}) = {fmt.num(s['copies'])}"),
            ("requests", f"floor({fmt.bytes_(s['budget'])} / ({fmt.num(s['copies'])} × {fmt.bytes_(kv)})) = "
                         f"{p.answer:,}; {other}")]


def _grammar_mask_q(p: Problem, v: dict[str, str]) -> str:
    i = p.inputs
    gpus = (f"1 GPU streaming {v['bandwidth']}" if i["gpus"] == 1 else
            f"{i['gpus']} GPUs (tensor-parallel), each streaming {v['bandwidth']}")
    threads = f"{v['threads']} CPU thread{'' if i['threads'] == 1 else 's'}"
    spec = (f"; speculative decoding verifies {v['draft_tokens']} draft tokens a step, so each sequence needs a mask "
            "at every draft position and one more" if i["draft_tokens"] else
            f"; there is no speculative decoding ({v['draft_tokens']} draft tokens)")
    return (f"A dense model of {v['params']} parameters at {v['bytes_per_weight']} per weight decodes on {gpus}; "
            f"at its context one sequence's KV cache is {v['kv_per_seq']} across "
            f"the replica. Every output follows a grammar, whose engine takes {v['mask']} to compute one token "
            f"mask, on {threads} shared by the batch{spec}. The masks are computed while the forward pass runs, "
            "and sampling waits for both. On the decode step's memory floor (the weights and every sequence's KV "
            "read once; compute left out), from what batch is the CPU the critical path?")


def _grammar_mask_s(p: Problem, v: dict[str, str]) -> list[tuple[str, str]]:
    s, i = p.solution, p.inputs
    g = i["gpus"]
    return [("weights", f"{v['params']} × {v['bytes_per_weight']} = {fmt.bytes_(s['weights'])}"),
            ("weight read", f"{fmt.bytes_(s['weights'])} / ({g} × {v['bandwidth']}) = {fmt.ms(s['weight_s'])}"),
            ("KV read per sequence", f"{v['kv_per_seq']} / ({g} × {v['bandwidth']}) = {fmt.ms(s['kv_s'])}"),
            ("CPU per sequence", f"{s['positions']} × {v['mask']} / {i['threads']} = {fmt.ms(s['per_sequence_cpu'])}"),
            ("crossover", f"W / (CPU − KV) = {fmt.ms(s['weight_s'])} / ({fmt.ms(s['per_sequence_cpu'])} − "
                          f"{fmt.ms(s['kv_s'])}) = {fmt.num(s['crossover'])}"),
            ("first batch past it", f"{p.answer:,}: masks {p.answer:,} × {fmt.ms(s['per_sequence_cpu'])} = "
                                    f"{fmt.ms(s['cpu_at'])} against {fmt.ms(s['weight_s'])} + {p.answer:,} × "
                                    f"{fmt.ms(s['kv_s'])} = {fmt.ms(s['gpu_at'])}")]


Question = Callable[[Problem, dict[str, str]], str]
Steps = Callable[[Problem, dict[str, str]], list[tuple[str, str]]]
QUESTIONS: dict[str, Question] = {"reasoning-kv": _reasoning_kv_q, "grammar-mask": _grammar_mask_q}
STEPS: dict[str, Steps] = {"reasoning-kv": _reasoning_kv_s, "grammar-mask": _grammar_mask_s}


# --- chapter 9: an image-heavy prompt's tokens and KV cache, a batch that mixes LoRA adapters -------------


def _image_tokens_q(p: Problem, v: dict[str, str]) -> str:
    i = p.inputs
    return (f"A vision-language model with a Qwen2.5-VL-style encoder receives {plural(i['images'], 'image')} of "
            f"{v['width']} × {v['height']} pixels and {v['text']} of text. The encoder cuts each image into square "
            f"patches of {v['patch']} pixels and merges each {v['merge']} × {v['merge']} block of patches into one "
            "token. First it resizes the image so both sides are whole numbers of blocks: each side rounded to the "
            f"nearest multiple of the block; if the area is then above {v['max_pixels']} pixels, both sides scaled "
            "by the square root of (original area / that maximum) and rounded down to a multiple of the block; if it "
            f"is below {v['min_pixels']} pixels, scaled up to it and rounded up. The language model has "
            f"{v['layers']} layers and {v['kv_heads']} KV heads of dimension {v['head_dim']}, and keeps its KV cache "
            f"at {v['bytes_per_kv']} per element. How many tokens is each image, and how much KV cache does the "
            "prompt take?")


def _image_tokens_s(p: Problem, v: dict[str, str]) -> list[tuple[str, str]]:
    s, i = p.solution, p.inputs
    block = s["factor"]
    resized = {"kept": "within the range, so kept",
               "scaled down": f"above {v['max_pixels']}, so scaled down and rounded down",
               "scaled up": f"below {v['min_pixels']}, so scaled up and rounded up"}[s["verdict"]]
    return [("block", f"{v['patch']} × {v['merge']} = {block} pixels"),
            ("rounded", f"{fmt.count(s['rounded_width'])} × {fmt.count(s['rounded_height'])} = "
                        f"{fmt.count(s['rounded_area'])} pixels, {resized}: {fmt.count(s['resized_width'])} × "
                        f"{fmt.count(s['resized_height'])}"),
            ("tokens per image", f"({fmt.count(s['resized_width'])} / {block}) × ({fmt.count(s['resized_height'])} / "
                                 f"{block}) = {fmt.count(s['per_image'])}"),
            ("prompt", f"{fmt.count(i['text'])} + {i['images']} × {fmt.count(s['per_image'])} = "
                       f"{fmt.count(s['prompt'])} tokens"),
            ("KV per token", f"2 × {v['layers']} × {v['kv_heads']} × {v['head_dim']} × {v['bytes_per_kv']} = "
                             f"{fmt.count(s['kv_token'])} bytes"),
            ("KV cache", f"{fmt.count(s['prompt'])} × {fmt.count(s['kv_token'])} bytes = {fmt.bytes_(p.answer)}")]


def _lora_step_q(p: Problem, v: dict[str, str]) -> str:
    i = p.inputs
    return (f"A model of {v['layers']} layers of width {v['hidden']}, with {v['query_heads']} query heads and "
            f"{v['kv_heads']} KV heads of dimension {v['head_dim']} and a feed-forward width of {v['ffn']}, serves "
            f"LoRA adapters unmerged. Each adapter has rank {v['rank']} on the {v['targets']} projections of every "
            f"layer (q maps the width to query heads × head dimension, k and v to KV heads × head dimension, o back; "
            f"gate and up map the width to the feed-forward width, down back), stored at {v['bytes_per_weight']} per "
            f"weight. Without adapters, a decode step of {v['batch']} sequences reads {v['base_step']} of weights "
            f"and KV cache from {practice_ops._gpus(i['gpus'])} of {v['bandwidth']} each, every GPU streaming its "
            f"share. The sequences use {plural(i['distinct'], 'distinct adapter')}, and the kernel reads each "
            "distinct adapter once per step. The step is bound by memory bandwidth. What is its floor?")


def _lora_step_s(p: Problem, v: dict[str, str]) -> list[tuple[str, str]]:
    s, i = p.solution, p.inputs
    widths = " + ".join(f"{t} ({fmt.count(a)} + {fmt.count(b)})" for t, (a, b) in s["widths"].items())
    return [("widths", f"{widths} = {fmt.count(s['width_sum'])}"),
            ("adapter", f"{v['rank']} × {fmt.count(s['width_sum'])} × {v['layers']} = {fmt.count(s['params'])} "
                        f"parameters, × {v['bytes_per_weight']} = {fmt.bytes_(s['adapter_bytes'])}"),
            ("step bytes", f"{v['base_step']} + {i['distinct']} × {fmt.bytes_(s['adapter_bytes'])} = "
                           f"{fmt.bytes_(s['step_bytes'])}, {fmt.pct(s['extra'])} more"),
            ("floor", f"{fmt.bytes_(s['step_bytes'])} / ({i['gpus']} × {v['bandwidth']}) = {fmt.ms(p.answer)}, "
                      f"against {fmt.ms(s['base_s'])} without adapters")]


QUESTIONS.update({"image-tokens": _image_tokens_q, "lora-step": _lora_step_q})
STEPS.update({"image-tokens": _image_tokens_s, "lora-step": _lora_step_s})


