"""The design pages' sources (macros/site/pages/design_sources.py): the KV precision stated with what it buys
and its caveat, the dated GPU price, and the reference list built from the claims a page cites."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from macros.site import registry
from macros.site.pages import design
from macros.site.pages import design_sources as src


def test_a_source_gives_its_first_date_or_none():
    assert src.source_date("DeepSeek, 'Day 6' (2025-03-01), github.com/...") == "2025-03-01"
    # the publication comes before the collection date, and an arXiv number is not a year
    assert src.source_date("Axios (2025-07): 2.5 billion; collected 2026-12-01") == "2025-07"
    assert src.source_date("arXiv 2502.14617, Fu et al. (OSDI 2024)") == "2024"
    assert src.source_date("the study guide (cloud GPU instance acquisition)") == "undated"


def test_claims_cited_in_first_use_order_each_once():
    text = "a {{ claim('b-key') }} then {{ claim(\"a-key\") }} and {{ claim( 'b-key' ) }} again"
    assert src.cited_claims(text) == ["b-key", "a-key"]


def test_the_autoscaler_states_its_fp8_kv_and_what_it_buys():
    # Llama-3.1-70B: 2 x 80 layers x 8 KV heads x 128 dims = 163,840 elements a token; FP8 1 B, BF16 2 B.
    # 2 x H200: 282 GB - 70,553,706,496 B of FP8 weights - 2 x 4 GB reserve = 203,446,293,504 B of KV budget.
    # At 2,850 tokens: FP8 466,944,000 B a sequence -> floor(435.7) = 435; BF16 933,888,000 B -> floor(217.8) = 217
    budget = 2 * 141e9 - 70_553_706_496 - 2 * 4e9
    assert budget // (163_840 * 2850) == 435 and budget // (2 * 163_840 * 2850) == 217
    p = design.model("autoscaler").plan
    assert p.max_batch == 435
    words = src.model("autoscaler").kv_words
    assert "held in FP8, not BF16: 164 kB a token instead of 328 kB" in words
    assert "holds 435 sequences of 2,850 tokens rather than 217" in words
    assert "minimally degrades inference accuracy" in words  # the caveat, with its source
    assert "2024-11" in words


def test_a_bf16_design_says_so_without_the_fp8_caveat():
    # Llama-3.1-70B in BF16: 2 x 80 x 8 x 128 x 2 B = 327,680 B, shown as 328 kB
    s = src.model("consumer-chat")
    assert s.kv_words == "The KV cache is held in BF16: 328 kB a token."
    assert src.FP8_KV_CLAIM not in s.claim_keys


@pytest.mark.parametrize("slug", ["autoscaler", "batch-api", "rag", "router"])
def test_every_fp8_kv_design_lists_the_caveat(slug):
    s = src.model(slug)
    assert src.FP8_KV_CLAIM in s.claim_keys
    assert "| Claim | fp8-kv-quality |" in s.references


def test_the_price_is_shown_with_its_date_and_source():
    # prices.toml: H100 typical $2.50 in a $1.50-$3.00 range, as of 2026
    words = src.model("consumer-chat").price_words
    assert words.startswith("Every cost on this page prices the H100 SXM at $2.50 per GPU-hour, range $1.50–$3.00 "
                            "(as of 2026; source: the study guide's numbers sheet")
    assert "| Price | H100 SXM | $2.50 per GPU-hour | unverified | 2026 |" in src.model("consumer-chat").references


def test_the_references_follow_the_page_and_refuse_an_unknown_claim(tmp_path, monkeypatch):
    page = (src.DOCS_DIR / "consumer-chat.md").read_text(encoding="utf-8")
    first = page.index("claim('") + len("claim('")
    key = page[first:page.index("'", first)]
    rows = [r for r in src.model("consumer-chat").references.splitlines() if r.startswith("|")]
    # (inside the reference list's frame) header, rule, the price, the GPU's and the model's specs, then the
    # page's first claim
    assert rows[3].startswith("| Spec | H100 SXM | 80 GB, 3.35 TB/s | checked |")
    assert rows[4].startswith("| Spec | Llama-3.1-70B | 70.6 billion parameters | checked |")
    assert rows[5].startswith(f"| Claim | {key} |")
    (tmp_path / "consumer-chat.md").write_text("{{ claim('no-such-claim') }}", encoding="utf-8")
    monkeypatch.setattr(src, "DOCS_DIR", tmp_path)
    with pytest.raises(design.DesignError, match="docs/designs/consumer-chat.md cites unknown claims: no-such-claim"):
        src.model.__wrapped__("consumer-chat")


def _env(src_uri: str) -> SimpleNamespace:
    return SimpleNamespace(page=SimpleNamespace(file=SimpleNamespace(src_uri=src_uri)))


def test_a_design_page_shows_each_claim_s_date_beside_it():
    # deepseek-disk-kv-hit's source: "DeepSeek, 'Day 6: ...' (2025-03-01), ...": its first date
    plain = registry._claim("deepseek-disk-kv-hit")
    assert registry._claim_on(_env("designs/consumer-chat.md"))("deepseek-disk-kv-hit") == f"{plain} (2025-03-01)"
    # a claim whose source gives no date says so
    assert registry._claim_on(_env("designs/autoscaler.md"))("instance-acquisition").endswith(" (undated)")
    # elsewhere the date stays in the tooltip
    assert registry._claim_on(_env("guide/autoscaling.md"))("deepseek-disk-kv-hit") == plain
