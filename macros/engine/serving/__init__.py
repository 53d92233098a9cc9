"""The serving model (ARCHITECTURE.md, the serving model): one replica as engines run it, beside the roofline floor.

Plain data in, plain data out, so the JavaScript twin can mirror it module by module:
- `replica`: what one replica is, as the plain numbers a step needs (weights, KV, FLOPs, peaks, tiles);
- `step`: the time of one engine step serving a mixed batch, as a sum of named terms;
- `profiles` and `families`: what differs between engines (token budget, running cap, KV block size, CUDA
  graphs, default KV dtype) and between GPU generations, as data with sources (data/engines.toml,
  data/gpu_families.toml);
- `prng`, `arrivals`, `lengths`: the requests, drawn reproducibly;
- `kv_blocks`, `scheduler`, `sim`: the step loop of continuous batching;
- `metrics`: percentiles, Little's law and goodput from the per-request records;
- `calibration`: the fitted parameters (data/calibration.toml) and the family fallback; `steady`: the closed
  loop's equilibrium the fit calls (the measured runs, the fit, its cross-validation and the model-against-
  measurement report are in engine/calibration/);
- `run`: one simulated run as `gpu_math.py simulate` asks for it.

Everything is in SI units. Nothing here formats numbers for readers.
"""
