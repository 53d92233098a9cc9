"""A day of traffic under an autoscaling policy (ARCHITECTURE.md, the serving model): a minute-level fluid model.

`inputs` reads data/autoscale.toml and prices a cold start; `day` draws the offered load (a diurnal curve
with bursts, or a replayed trace of per-minute rates) and the length mix of each minute; `signals` says
what each scaling signal reads; `fluid` runs the day under a policy; `run` ties them to a workload file
and to one replica's capacity at the SLO from the serving simulator (serving/capacity.py).
"""
