"""The mock round's content (macros/site/pages/mock_round.py): exported from the data the pages print; a pool
of follow-ups per round (data/practice/follow_ups.toml, checked on load) large enough that two rounds differ,
with interruptions; key numbers equal to the page's own figures, derived here again from the data files; and
JSON safe to embed in a <script>."""

from __future__ import annotations

import json
import math
import tomllib
from pathlib import Path
from types import SimpleNamespace

import pytest

from macros.engine.fleet.answer import answer
from macros.engine.fleet.planner import plan
from macros.engine.fleet.workload_file import load_workload_file
from macros.engine.model.scenario import DEFAULT_RESERVE_BYTES
from macros.engine.problems.rubric import rubric
from macros.engine.specs import DATA_DIR
from macros.site.pages import _round_figures, _round_follow_ups, design, design_chatgpt, mock_round
from macros.text import plan_report, show

ROUNDS = mock_round.all_rounds()


def toml(name: str) -> dict:
    return tomllib.loads((DATA_DIR / name).read_text())


def numbers(slug: str) -> dict[str, dict]:
    return {n["key"]: n for n in ROUNDS[slug]["numbers"]}


def test_checkpoints_are_the_minutes_between_items():
    # items of 5, 5, 8 minutes: checkpoints at 5 and 10 (18 is the end of the round)
    assert mock_round.checkpoints([5, 5, 8]) == [5, 10]


def test_follow_ups_take_the_last_checkpoints_or_share_them():
    assert mock_round.due_minutes([5, 10, 18, 25], 2) == [18, 25]
    assert mock_round.due_minutes([5, 10], 4) == [5, 5, 10, 10]  # i * 2 // 4 for i = 0..3: 0, 0, 1, 1


def test_a_design_round_is_its_design_file():
    data = ROUNDS["consumer-chat"]
    m = design.meta("consumer-chat")
    assert data["prompt"] == m.prompt
    # the consumer-chat plan: 5, 5, 8, 7, 8, 7, 5 minutes -> checkpoints 5, 10, 18, 25, 33, 40; six follow-ups drawn
    assert data["checkpoints_s"] == [m * 60 for m in (5, 10, 18, 25, 33, 40)]
    assert data["due_s"] == data["checkpoints_s"]
    assert data["round_s"] == 45 * 60
    # each critique, asked of the reader's design, is answered by the page's revision of it
    own = [f for f in data["pool"] if f["id"].startswith("chat-")]
    assert [f["href"] for f in own] == [f"#revision-{n}" for n in range(1, 7)]
    assert [f["answer"] for f in own] == [f"Revision {c.number}: {c.revision}" for c in m.critiques]
    assert own[1]["question"] == "A model rollout empties every prefix cache at once. What does your fleet do that day?"
    assert data["hide"] == ["details.design-answer", ".worked-answer"] and data["fold"] == "details.design-answer"


def test_chapter_7s_round_is_its_data_file():
    data = ROUNDS["design-chatgpt"]
    raw = design_chatgpt.ROUND_DATA
    assert data["prompt"] == raw["prompt"]
    own = [f for f in data["pool"] if f["id"].startswith("chapter-7-")]
    assert len(own) == len(raw["follow_ups"]) == 9
    assert own[1]["question"] == "A user sends a 100,000-token prompt. What happens to everyone else?"
    assert {f["href"] for f in own} == {"#74-the-follow-ups-with-answers"}
    # twelve beats -> eleven checkpoints (3, 4, 9, 15, 16, 19, 23, 27, 30, 36, 40); six follow-ups take the last six
    assert data["due_s"] == [m * 60 for m in (19, 23, 27, 30, 36, 40)]
    assert data["hide"] == [".worked-answer", "details.answer"] and data["fold"] is None


@pytest.mark.parametrize("slug", list(ROUNDS))
def test_every_round_draws_from_a_pool_of_at_least_twelve_with_an_interruption(slug: str):
    pool = ROUNDS[slug]["pool"]
    kinds = [f["kind"] for f in pool]
    assert len(pool) >= 12 and kinds.count("interruption") >= 1
    assert kinds.count("question") >= len(ROUNDS[slug]["due_s"]) - 1
    assert len({f["id"] for f in pool}) == len(pool)  # a stored draw names its follow-ups by id
    for f in pool:
        assert f["question"].endswith("?") and f["answer"] and "{" not in f["answer"], f["id"]


def test_the_pool_file_loads_with_its_shared_and_per_design_entries():
    p = _round_follow_ups.pool()
    assert len(p.general) >= 8 and len(p.interruptions) >= 4
    assert {f.kind for f in p.interruptions} == {"interruption"}
    assert set(p.designs) == set(design.slugs())
    raw = toml("practice/follow_ups.toml")
    assert [f.question for f in p.interruptions][:3] == [e["question"] for e in raw["interruptions"][:3]]
    assert "The traffic doubles tomorrow." in p.interruptions[0].question
    assert any("Finance cuts the GPU budget by a third" in f.question for f in p.interruptions)
    assert any("twice the size" in f.question for f in p.interruptions)


GOOD = '''
[[general]]
id = "g"
question = "Why?"
answer = "Because {gpus}."

[[interruptions]]
id = "i"
question = "Now what?"
answer = "This."

[[designs.rag]]
id = "d"
critique = 2
question = "How?"
'''


@pytest.mark.parametrize(("text", "message"), [
    (GOOD.replace('answer = "Because {gpus}."', ""),
     "{file}: [[general]] entry 1 (g): answer is missing: a shared follow-up needs a short model answer"),
    (GOOD.replace("{gpus}", "{gpu_count}"),
     "{file}: [[general]] entry 1 (g): answer names an unknown figure {{gpu_count}} (known: model, gpu, "),
    (GOOD.replace('"Now what?"', '"Now this."'),
     "{file}: [[interruptions]] entry 1 (i): question must end with a question mark"),
    (GOOD.replace('id = "i"', 'id = "g"'),
     "{file}: [[interruptions]] entry 1 (g): id g is already used by [[general]]"),
    (GOOD.replace("designs.rag", "designs.chat"), "{file}: [[designs.chat]]: no worked design chat (known: "),
    (GOOD.replace("critique = 2", "critique = 7"),
     "{file}: [[designs.rag]] entry 1 (d): critique must be a critique's number, 1 to 6, got 7"),
    (GOOD.replace('critique = 2', 'critique = 2\nanswr = "typo"'),
     "{file}: [[designs.rag]] entry 1 (d): unknown key answr"),
    (GOOD.replace('critique = 2', ''), "{file}: [[designs.rag]] entry 1 (d): needs an answer, the critique it rewords"),
    (GOOD.replace('"Why?"', '"Why {gpus}?"'), "{file}: [[general]] entry 1 (g): question must name no figure"),
    (GOOD.replace("{gpus}", "{gpus:,}"), "{file}: [[general]] entry 1 (g): {{gpus:,}} must be a plain {{name}}"),
    (GOOD.replace('id = "g"', 'id = "Big One"'), "{file}: [[general]] entry 1 (Big One): id must be lower-case words"),
    (GOOD.replace("[[interruptions]]", "[[interruption]]"), "{file}: unknown table interruption (known: "),
    (GOOD.replace("[[interruptions]]\nid = \"i\"\nquestion = \"Now what?\"\nanswer = \"This.\"", ""),
     "{file}: [[interruptions]] must list at least one entry"),
    (GOOD + "[[general]\n", "{file}: not valid TOML: "),
])
def test_a_bad_pool_entry_is_one_line_naming_the_file_and_the_entry(tmp_path: Path, text: str, message: str):
    bad = tmp_path / "follow_ups.toml"
    bad.write_text(text)
    with pytest.raises(_round_follow_ups.FollowUpError) as caught:
        _round_follow_ups.read_pool(bad, slugs=design.slugs())
    said = str(caught.value)
    assert said.startswith(message.format(file=bad)), said
    assert "\n" not in said


def test_the_good_sample_reads(tmp_path: Path):
    good = tmp_path / "follow_ups.toml"
    good.write_text(GOOD)
    p = _round_follow_ups.read_pool(good, slugs=design.slugs())
    assert [f.id for f in (*p.general, *p.interruptions, *p.designs["rag"])] == ["g", "i", "d"]
    assert p.general[0].answer == "Because {gpus}." and p.designs["rag"][0].critique == 2


def test_a_round_with_too_small_a_pool_is_refused():
    entries = [{"id": f"q{n}", "kind": "question"} for n in range(10)] + [{"id": "i", "kind": "interruption"}]
    with pytest.raises(_round_follow_ups.FollowUpError, match=r"the round of rag has 11 follow-ups to draw from; it "
                                                              r"needs at least 12"):
        mock_round.check_pool("rag", entries)
    entries = [{"id": f"q{n}", "kind": "question"} for n in range(12)]
    with pytest.raises(_round_follow_ups.FollowUpError, match="needs at least one interruption"):
        mock_round.check_pool("rag", entries)


# --- the key numbers, against the data files read here ----------------------------------------------------

def consumer_chat() -> SimpleNamespace:
    """The consumer-chat design's workload and hardware, from the TOML files, not from the engine."""
    w = toml("designs/consumer-chat.toml")
    m = toml("models.toml")[w["model"]]
    g = toml("gpus.toml")[w["gpu"]]
    price = toml("prices.toml")[w["gpu"]]["typical"]
    seq = w["traffic"]["prompt_tokens"] + w["traffic"]["output_tokens"]
    kv_token = 2 * m["layers"] * m["kv_heads"] * m["head_dim"] * 2  # K and V, BF16
    return SimpleNamespace(w=w, m=m, g=g, price=price, seq=seq, kv_token=kv_token, kv_seq=kv_token * seq)


@pytest.mark.parametrize("slug", ["consumer-chat", "design-chatgpt"])
def test_the_kv_cache_per_sequence_is_the_models_arithmetic(slug: str):
    c = consumer_chat()  # chapter 7 sizes its fleet on the consumer-chat workload
    kv = numbers(slug)["kv_per_seq"]
    assert c.kv_token == 327_680 and c.seq == 2_400
    assert kv["value"] == c.kv_seq == 786_432_000
    assert kv["low"] == pytest.approx(0.9 * c.kv_seq) and kv["high"] == pytest.approx(1.1 * c.kv_seq)
    assert kv["unit"] == "bytes" and "within 10%" in kv["band"]
    assert kv["derivation"][0] == "KV per token: 2 × 80 × 8 × 128 × 2 B = 327,680 B (320 KiB)"
    assert kv["derivation"][1] == "KV per sequence: 327,680 B × 2,400 = 786 MB"


def test_the_max_batch_is_the_budget_over_a_sequence():
    c = consumer_chat()
    gpus = 4  # the napkin's shape, printed in the page's derivation
    budget = gpus * c.g["memory_bytes"] - c.m["params"] * 2 - gpus * DEFAULT_RESERVE_BYTES
    bare = gpus * c.g["memory_bytes"] - c.m["params"] * 2
    mb = numbers("consumer-chat")["max_batch"]
    assert mb["value"] == math.floor(budget / c.kv_seq) == 207
    assert mb["low"] == math.floor(0.9 * 207) and mb["high"] == math.ceil(1.1 * math.floor(bare / c.kv_seq)) == 250
    assert mb["derivation"][-1] == "max batch: ⌊163 GB / 786 MB⌋ = 207"
    assert "4 × H100 SXM" in mb["band"]


@pytest.mark.parametrize("slug", ["consumer-chat", "design-chatgpt"])
def test_the_fleet_and_its_cost_are_the_serving_models_answer(slug: str):
    c = consumer_chat()
    w, _ = load_workload_file(DATA_DIR / "designs" / "consumer-chat.toml")
    napkin = plan(w)
    a = answer(napkin)  # the engine's answer, asked for here, not through the page models
    fleet, cost = numbers(slug)["fleet_gpus"], numbers(slug)["cost_per_day"]
    assert fleet["value"] == a.gpus and fleet["unit"] == "count"
    assert fleet["low"] == min(a.gpus, napkin.gpus) / 2 and fleet["high"] == max(a.gpus, napkin.gpus) * 2
    assert f"{a.gpus:,} GPUs" in fleet["page"] and f"gives {napkin.gpus:,}" in fleet["page"]
    assert fleet["derivation"][-1] == plan_report.answer(napkin, a.json)
    assert cost["value"] == pytest.approx(a.gpus * c.price * 24)
    assert cost["high"] == pytest.approx(max(a.gpus, napkin.gpus) * c.price * 24 * 2)


def test_the_first_token_band_runs_from_the_prefill_floor_to_the_simulated_tail():
    c = consumer_chat()
    t = c.w["traffic"]
    uncached = t["prompt_tokens"] * (1 - t["prefix_hit_rate"])
    floor = 2 * c.m["params"] * uncached / (4 * c.g["bf16_flops"])  # 2 N per token on 4 GPUs, attention left out
    ttft = numbers("consumer-chat")["ttft"]
    assert ttft["low"] == pytest.approx(floor / 2, rel=0.05)  # the attention over 1,000 tokens is a few percent
    a = design.model("consumer-chat").answer
    assert ttft["value"] == a.ttft_p95_s and ttft["high"] == pytest.approx(2 * max(a.ttft_p95_s, floor / 0.4), rel=0.05)
    assert ttft["unit"] == "seconds" and ttft["derivation"][0].startswith("prefill: 2,000 × (1 − 50%) = 1,000")


@pytest.mark.parametrize("slug", list(ROUNDS))
def test_every_number_lies_in_its_own_band_and_shows_its_derivation(slug: str):
    found = ROUNDS[slug]["numbers"]
    assert [n["key"] for n in found] == ["kv_per_seq", "max_batch", "ttft", "fleet_gpus", "cost_per_day"]
    d = design_chatgpt.model().fleet if slug == mock_round.CHAPTER else design.model(slug).plan
    assert numbers(slug)["kv_per_seq"]["value"] == d.kv_bytes_per_seq
    assert numbers(slug)["kv_per_seq"]["derivation"][1] == f"KV per sequence: {show.kv_per_seq(d.at_slo)}"
    for n in found:
        assert 0 <= n["low"] <= n["value"] <= n["high"], n["key"]
        assert n["label"] and n["page"] and n["band"].startswith("Accepted: ") and n["derivation"], n["key"]


def test_the_interruptions_answers_carry_the_designs_figures():
    a = design.model("consumer-chat").answer
    pool = {f["id"]: f for f in ROUNDS["consumer-chat"]["pool"]}
    assert f"from {a.gpus:,} to about {2 * a.gpus:,} GPUs" in pool["traffic-doubles"]["answer"]
    assert f"From {a.gpus:,} GPUs to about {a.gpus * 2 // 3:,}" in pool["budget-cut"]["answer"]
    assert pool["model-doubles"]["answer"].startswith("Its weights become 282 GB: on 4 × H100 SXM the KV budget")


def test_every_figure_an_answer_may_name_is_filled_in():
    d = design.model("consumer-chat")
    assert set(_round_figures.figures(d.plan, d.answer)) == set(_round_follow_ups.FIGURES)


def test_a_design_with_no_fleet_still_has_a_round(monkeypatch: pytest.MonkeyPatch):
    words = "On this data the planner finds no fleet for it: ..."
    monkeypatch.setattr(mock_round.design, "model",
                        lambda slug, infeasible_ok=False: SimpleNamespace(feasible=False, infeasible_words=words))
    data = mock_round.round_data("rag")
    assert data["numbers"] == []
    assert {f["id"]: f for f in data["pool"]}["traffic-doubles"]["answer"] == words


def test_the_rubric_goes_with_every_round():
    r = rubric()
    exported = ROUNDS["rag"]["rubric"]
    assert [d["key"] for d in exported["dimensions"]] == [d.key for d in r.dimensions]
    assert [v["key"] for v in exported["verdicts"]] == ["strong-hire", "hire", "lean-no-hire", "no-hire"]


def test_the_embedded_json_cannot_close_its_script():
    text = mock_round.script_json({"x": "</script><b>&"})
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == {"x": "</script><b>&"}


def test_all_nine_rounds():
    assert list(ROUNDS) == ["design-chatgpt", *design.slugs()]
    assert len(design.slugs()) == 8
    assert _round_figures.CHOICES == 2  # the bands' words and the tests above assume a factor of two
