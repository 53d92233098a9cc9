"""A workload on a fleet: the workload file (`workload_file`), the napkin's first-order plan (`planner`), the
serving model's count on one shape (`planner_simulated`), the answer over shapes and token budgets (`answer`),
the closed-loop shape search (`shapes`), prefill and decode apart (`disaggregated`), the fleet's options
(`fleet_options`), and what a change to the plan does (`plan_change`, `plan_levers`)."""
