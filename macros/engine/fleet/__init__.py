"""A workload on a fleet: the workload file (`workload_file`), the napkin's first-order plan (`planner`), the
simulated check beside it (`planner_simulated`) and the shape search (`shapes`), prefill and decode apart
(`disaggregated`), the fleet's options (`fleet_options`), what a change to the plan does (`plan_change`,
`plan_levers`), and the serving answer a design page states (`serving_answer`)."""
