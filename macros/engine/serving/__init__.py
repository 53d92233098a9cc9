"""The serving model (DESIGN §10): one replica as engines run it, beside the roofline floor.

Plain data in, plain data out, so the JavaScript twin can mirror it module by module:
- `replica`: what one replica is, as the plain numbers a step needs (weights, KV, FLOPs, peaks);
- `step`: the time of one engine step serving a mixed batch, as a sum of named terms;
- `profiles`: what differs between engines (token budget, running cap, KV block size, CUDA graphs,
  default KV dtype), as data with sources (data/engines.toml);
- `prng`, `arrivals`, `lengths`: the requests, drawn reproducibly;
- `kv_blocks`, `scheduler`, `sim`: the step loop of continuous batching;
- `metrics`: percentiles, Little's law and goodput from the per-request records;
- `calibration`, `steady`, `measured`: the fitted parameters, the closed loop's equilibrium the fit
  uses, and the measured runs it is fitted to.

Everything is in SI units. Nothing here formats numbers for readers.
"""
