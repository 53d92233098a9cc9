"""The errata page's "Corrections to this guide": figures the site itself printed before its model was corrected,
recomputed by the rule the page used then, beside what it computes now. Both sides come from the
anchor (data/workloads.toml), because they correct the guide's own figures, not the source's."""

from __future__ import annotations

from types import SimpleNamespace

from ...engine import formulas as f
from ...engine.model.geometry import model_kv_bytes_per_seq
from ...engine.model.scenario import anchor
from ...engine.specs import catalog
from ...engine.workloads import workloads
from ._shared import kv_transfer_s, speculation


def site_corrections() -> SimpleNamespace:
    w = workloads()
    s = anchor()
    nic = catalog().claims["nic-bandwidth"].low
    nvlink = s.gpu_spec.interconnect_bytes_per_s  # one direction
    prompt_kv = model_kv_bytes_per_seq(s.model_spec, w["prompt_tokens"])
    long_kv = model_kv_bytes_per_seq(s.model_spec, w["big_prompt"])
    return SimpleNamespace(
        s=s, draft_tokens=w["draft_tokens"], prompt_tokens=w["prompt_tokens"], long_prompt_tokens=w["big_prompt"],
        **speculation(s, w["draft_tokens"]),
        # before: the whole cache over one NIC, and over NVLink's two directions added
        old_prompt_network_s=f.transfer_time_s(prompt_kv, nic),
        old_long_network_s=f.transfer_time_s(long_kv, nic),
        old_prompt_nvlink_s=f.transfer_time_s(prompt_kv, 2 * nvlink),
        # now: each GPU sends its share over its own link, one direction
        prompt_network_s=kv_transfer_s(s, prompt_kv, nic),
        long_network_s=kv_transfer_s(s, long_kv, nic),
        prompt_nvlink_s=kv_transfer_s(s, prompt_kv, nvlink),
    )
