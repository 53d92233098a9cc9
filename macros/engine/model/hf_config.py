"""Any model from its Hugging Face config.json: the geometry the engine needs and the parameter
counts that follow from it, as a `specs.Model` (the same fields and units as models.toml).

    hf = load_hf_config("path/to/config.json")
    hf.model            # specs.Model: params, active_params, layers, heads, head_dim, MoE, MLA, windows
    hf.params.attention # N_attn, the attention weights each rank holds under dp-attention

Families are recognised by `model_type` (or, failing that, `architectures`). Defaults for absent
fields are the ones transformers applies for that family, so a count matches the checkpoint. A bad
file raises specs.SpecError with one line naming the file and the field (the CLI exits 2 on it).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from macros.engine import rules
from macros.engine.model.hf_params import Geometry, Mla, Moe, ParamCount, count_params
from macros.engine.specs import Model, SpecError, display_path, read_text

ARCHITECTURES = {
    "LlamaForCausalLM": "llama", "MistralForCausalLM": "mistral", "MixtralForCausalLM": "mixtral",
    "Qwen2ForCausalLM": "qwen2", "Qwen2MoeForCausalLM": "qwen2_moe", "Qwen3ForCausalLM": "qwen3",
    "Qwen3MoeForCausalLM": "qwen3_moe", "DeepseekV3ForCausalLM": "deepseek_v3",
    "Gemma2ForCausalLM": "gemma2", "GptOssForCausalLM": "gpt_oss",
}
FAMILIES = frozenset(ARCHITECTURES.values())
RULES = "hf_config"  # data/rules.toml's set for the config's fields
_EXPERTS = {"mixtral": "num_local_experts", "gpt_oss": "num_local_experts", "qwen2_moe": "num_experts",
            "qwen3_moe": "num_experts", "deepseek_v3": "n_routed_experts"}  # each family's name for E
_ABSENT = object()


@dataclass(frozen=True)
class HfModel:
    model: Model
    params: ParamCount
    geometry: Geometry
    family: str  # the model_type this was read as
    native_dtype: str | None  # quantization_config.quant_method ("fp8", "mxfp4"), else torch_dtype
    extra: dict[str, int] = field(default_factory=dict)  # geometry specs.Model has no field for


class _Reader:
    """Typed access to the config's fields; every problem becomes one SpecError line."""

    def __init__(self, raw: dict[str, Any], where: str) -> None:
        self.raw, self.where = raw, where

    def fail(self, name: str, problem: str) -> NoReturn:
        raise SpecError(f"{self.where}: {name}: {problem}")

    def _checked(self, name: str, value: Any) -> Any:
        try:
            return rules.check_value(rules.rule_of(RULES, name), value, name)
        except rules.RuleError as exc:
            raise SpecError(f"{self.where}: {exc}") from None

    def count(self, name: str, default: Any = _ABSENT, why: str = "") -> int:
        """A whole number the rules allow (most are positive; a few may be 0)."""
        value = self.raw.get(name, default)
        if value is _ABSENT:
            self.fail(name, f"missing field{why}")
        return self._checked(name, value)

    def optional(self, name: str) -> int | None:
        """A count that may be absent or null (a window, a LoRA rank): None then."""
        return None if self.raw.get(name) is None else self.count(name)

    def flag(self, name: str, default: bool) -> bool:
        value = self.raw.get(name, default)
        if value is None:
            return default
        return self._checked(name, value)


def _family(r: _Reader) -> str:
    model_type = r.raw.get("model_type")
    if model_type in FAMILIES:
        return model_type
    archs = r.raw.get("architectures") or []
    for arch in archs if isinstance(archs, list) else []:
        if arch in ARCHITECTURES:
            return ARCHITECTURES[arch]
    r.fail("model_type", f"unknown architecture {model_type!r} (architectures {archs!r}); "
                         f"known: {', '.join(sorted(FAMILIES))}")


def _moe(r: _Reader, family: str, layers: int) -> Moe | None:
    if family in ("mixtral", "gpt_oss"):  # every layer is MoE; intermediate_size is one expert's width
        return Moe(experts=r.count("num_local_experts"), experts_per_token=r.count("num_experts_per_tok"),
                   expert_ffn_size=r.count("intermediate_size"), moe_layers=layers,
                   router_bias=family == "gpt_oss", expert_bias=family == "gpt_oss")
    if family in ("qwen2_moe", "qwen3_moe"):
        # transformers: layer i is sparse unless listed in mlp_only_layers, every decoder_sparse_step-th
        step = r.count("decoder_sparse_step", 1)
        dense = r.raw.get("mlp_only_layers") or []
        if not isinstance(dense, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in dense):
            r.fail("mlp_only_layers", f"must be a list of layer indices, got {dense!r}")
        moe_layers = sum(1 for i in range(layers) if i not in dense and (i + 1) % step == 0)
        shared = r.count("shared_expert_intermediate_size") if family == "qwen2_moe" else 0
        return Moe(experts=r.count("num_experts"), experts_per_token=r.count("num_experts_per_tok"),
                   expert_ffn_size=r.count("moe_intermediate_size"), moe_layers=moe_layers,
                   shared_ffn_size=shared, shared_gate=family == "qwen2_moe")
    if family == "deepseek_v3":
        first_dense, freq = r.count("first_k_dense_replace", 0), r.count("moe_layer_freq", 1)
        expert_ffn = r.count("moe_intermediate_size")
        shared = None if r.raw.get("n_shared_experts") is None else r.count("n_shared_experts")  # null or 0: none
        return Moe(experts=r.count("n_routed_experts"), experts_per_token=r.count("num_experts_per_tok"),
                   expert_ffn_size=expert_ffn,
                   moe_layers=sum(1 for i in range(layers) if i >= first_dense and i % freq == 0),
                   shared_ffn_size=(shared or 0) * expert_ffn,
                   router_bias=True)  # e_score_correction_bias, one per routed expert
    return None


def _sliding(r: _Reader, family: str, layers: int) -> tuple[int | None, int]:
    """(window, how many layers use it). Newer configs list layer_types; older ones imply it."""
    types = r.raw.get("layer_types")
    if types is not None:
        if not isinstance(types, list) or len(types) != layers:
            r.fail("layer_types", f"must list one type per layer ({layers}), got {types!r}")
        n = sum(1 for t in types if t == "sliding_attention")
    elif family in ("mistral", "mixtral"):  # a window, when set, applies to every layer
        n = layers if r.optional("sliding_window") else 0
    elif family in ("qwen2", "qwen2_moe", "qwen3", "qwen3_moe"):
        # sliding_window is set in most Qwen configs but only used when use_sliding_window is true,
        # and then only from layer max_window_layers on
        on = r.flag("use_sliding_window", False)
        n = max(0, layers - r.count("max_window_layers", layers)) if on else 0
    elif family in ("gemma2", "gpt_oss"):  # local layers alternate with global ones, starting local
        n = math.ceil(layers / 2)
    else:
        n = 0
    if n == 0:
        return None, 0
    return r.count("sliding_window", why=f" ({n} layers use a sliding window)"), n


def _geometry(r: _Reader, family: str) -> tuple[Geometry, dict[str, int]]:
    layers, hidden = r.count("num_hidden_layers"), r.count("hidden_size")
    heads = r.count("num_attention_heads")
    kv_heads = r.count("num_key_value_heads", heads)  # transformers: absent means MHA
    try:
        rules.check_across(RULES, {"num_attention_heads": heads, "hidden_size": hidden,
                                   "head_dim": r.raw.get("head_dim")})
    except rules.RuleError as exc:
        raise SpecError(f"{r.where}: {exc}") from None
    head_dim = r.count("head_dim", hidden // heads)  # Qwen3, Gemma-2 and GPT-OSS decouple it
    bias = r.flag("attention_bias", family == "gpt_oss")
    extra: dict[str, int] = {"vocab_size": r.count("vocab_size")}
    mla = None
    if family == "deepseek_v3":
        mla = Mla(q_lora_rank=r.optional("q_lora_rank"), kv_lora_rank=r.count("kv_lora_rank"),
                  qk_nope_head_dim=r.count("qk_nope_head_dim"), qk_rope_head_dim=r.count("qk_rope_head_dim"),
                  v_head_dim=r.count("v_head_dim"))
        head_dim = mla.qk_nope_head_dim  # models.toml's convention
        # the multi-token-prediction module is not part of the published 671B: left out
        mtp = r.raw.get("num_nextn_predict_layers")
        extra["mtp_layers_not_counted"] = mtp if isinstance(mtp, int) and not isinstance(mtp, bool) else 0
    moe = _moe(r, family, layers)
    if moe and moe.moe_layers == layers:
        ffn = None
    else:
        ffn = r.count("intermediate_size", why=" (dense MLP width)")
    if moe is not None:
        extra.update(moe_layers=moe.moe_layers, shared_ffn_size=moe.shared_ffn_size)
        if moe.moe_layers == 0:
            moe = None
    g = Geometry(
        vocab_size=extra["vocab_size"], hidden_size=hidden, layers=layers, query_heads=heads,
        kv_heads=kv_heads, head_dim=head_dim, ffn_size=ffn,
        tied_embeddings=r.flag("tie_word_embeddings", family == "gemma2"),  # Gemma ties by default
        qkv_bias=family in ("qwen2", "qwen2_moe") or bias, o_bias=bias and family != "deepseek_v3",
        mlp_bias=family == "llama" and r.flag("mlp_bias", False),
        qk_norm=family in ("qwen3", "qwen3_moe"), norms_per_layer=4 if family == "gemma2" else 2,
        attention_sinks=family == "gpt_oss", mla=mla, moe=moe)
    return g, extra


def load_hf_config(path: str | os.PathLike[str], key: str | None = None) -> HfModel:
    """Read a Hugging Face config.json and return the model it describes. `key` names the model
    (default: the file's stem, or its folder's name for a file called config.json)."""
    path = Path(path)
    where = display_path(path)
    text = read_text(path)
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SpecError(f"{where}: not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    if not isinstance(raw, dict):
        raise SpecError(f"{where}: must be a JSON object, got {type(raw).__name__}")
    r = _Reader(raw, where)
    family = _family(r)
    geometry, extra = _geometry(r, family)
    window, window_layers = _sliding(r, family, geometry.layers)
    params = count_params(geometry)
    moe = geometry.moe
    key = key or (path.parent.name if path.name == "config.json" else path.stem)
    name = raw.get("_name_or_path") if isinstance(raw.get("_name_or_path"), str) else key
    model = Model(
        key=key, name=name or key, params=params.total,
        active_params=params.active if moe else None,
        layers=geometry.layers, query_heads=geometry.query_heads, kv_heads=geometry.kv_heads,
        head_dim=geometry.head_dim, hidden_size=geometry.hidden_size,
        ffn_size=moe.expert_ffn_size if moe else geometry.ffn_size,  # per routed expert, as models.toml
        max_context=r.count("max_position_embeddings"),
        kv_lora_rank=geometry.mla.kv_lora_rank if geometry.mla else None,
        qk_rope_head_dim=geometry.mla.qk_rope_head_dim if geometry.mla else None,
        qk_nope_head_dim=geometry.mla.qk_nope_head_dim if geometry.mla else None,
        v_head_dim=geometry.mla.v_head_dim if geometry.mla else None,
        q_lora_rank=geometry.mla.q_lora_rank if geometry.mla else None,
        vocab_size=geometry.vocab_size, tie_embeddings=geometry.tied_embeddings,
        native_weights=_native(raw, family),
        sliding_window=window, sliding_window_layers=window_layers,
        experts=moe.experts if moe else None, experts_per_token=moe.experts_per_token if moe else None,
        source=f"{where} (model_type {family}); parameters counted from the geometry", checked="",
        note="read from a Hugging Face config.json")

    # the same checks a models.toml entry must pass, naming the config's own fields
    names = {**rules.table()[RULES]["names"], "experts": _EXPERTS.get(family, "experts")}
    try:
        rules.check_across("model", dataclasses.asdict(model), names)
    except rules.RuleError as exc:
        raise SpecError(f"{where}: {exc}") from None
    return HfModel(model=model, params=params, geometry=geometry, family=family,
                   native_dtype=_quant_method(raw) or raw.get("torch_dtype"), extra=extra)


def _quant_method(raw: dict[str, Any]) -> str | None:
    quant = raw.get("quantization_config")
    return quant.get("quant_method") if isinstance(quant, dict) else None


def _native(raw: dict[str, Any], family: str) -> str:
    """The checkpoint's weight format as a precisions.toml key: a quantization method the data knows
    (fp8, mxfp4), else the stored dtype (bfloat16 -> bf16, float16 -> fp16). GPT-OSS stores MXFP4 for
    its experts only; the engine treats the whole model in its native_weights format."""
    method = _quant_method(raw)
    if method in ("fp8", "mxfp4"):
        return method
    return {"float16": "fp16"}.get(raw.get("torch_dtype"), "bf16")
