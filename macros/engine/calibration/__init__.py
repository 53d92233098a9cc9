"""The serving model against measurement: the measured runs (`measured`, data/measured/), the fit of the step
model's parameters and its cross-validation by whole series (`fitting`, `make calibrate`), and the report of
the model against every measured run (`report`). The fitted parameters the serving model reads are
serving/calibration.py's."""
