// The offered load, minute by minute (macros/engine/autoscale/day.py, whose docstring gives the order of the
// draws): the workload's diurnal curve (a sinusoid, or a peaked day past twice the mean) with seeded bursts, or a replayed trace of per-minute rates; the
// forecast (the curve alone); and the minutes whose length mix has shifted.

import { InputError } from "../rules.js";
import { roundHalfEven } from "../serving/lengths.js";
import { pyFloat, pyRepr } from "../serving/arrivals.js";
import { Rng } from "../serving/prng.js";

export const MINUTES_PER_DAY = 1440;
export const MINUTES_PER_HOUR = 60;
const HOURS_PER_DAY = 24;

// formulas.diurnal_rate: mean + amplitude * cos(2 pi t / 24 h), at the peak at t = 0.
export function diurnalRate(hoursFromPeak, peak, trough) {
  const mean = (peak + trough) / 2, amplitude = (peak - trough) / 2;
  return mean + amplitude * Math.cos(2 * Math.PI * hoursFromPeak / HOURS_PER_DAY);
}

// Python's f"{x:g}" for the messages.
const g = (x) => { const t = Number(x.toPrecision(6)); return Math.abs(t) >= 1e-4 && Math.abs(t) < 1e16 ? String(t) : String(x); };

// The sinusoid's low point: mean - (peak - mean), and 0 for a day more peaked than a sinusoid can be.
export const troughRate = (peak, mean) => Math.max(0.0, 2 * mean - peak);

const QUADRATURE = 1440, BISECTIONS = 60, MOST_PEAKED = 24;

// The day's mean of ((1 + cos theta) / 2) ** k over QUADRATURE equal steps of theta (day.py's _peaked_mean).
function peakedMean(k) {
  let sum = 0;
  for (let j = 0; j < QUADRATURE; j++) sum += ((1 + Math.cos(2 * Math.PI * j / QUADRATURE)) / 2) ** k;
  return sum / QUADRATURE;
}

// k such that peak * ((1 + cos(2 pi t / 24 h)) / 2) ** k has its peak peakToMean times its mean (bisection).
const peaked = new Map();
export function peakedness(peakToMean) {
  if (peaked.has(peakToMean)) return peaked.get(peakToMean);
  if (peakToMean > MOST_PEAKED) {
    throw new InputError(`a peak ${g(peakToMean)} times the day's mean is more than ${MOST_PEAKED}: the whole day's `
      + "traffic in less than an hour is no daily curve (replay it as a trace)");
  }
  const target = 1 / peakToMean;
  let low = 1.0, high = 2.0;
  while (peakedMean(high) > target) { low = high; high = 2 * high; }
  for (let i = 0; i < BISECTIONS; i++) {
    const mid = (low + high) / 2;
    if (peakedMean(mid) > target) low = mid; else high = mid;
  }
  const k = (low + high) / 2;
  peaked.set(peakToMean, k);
  return k;
}

// The day's curve at the start of each minute: the sinusoid while the peak is at most twice the mean, past that
// the peaked day peak * ((1 + cos) / 2) ** k (day.py's curve).
export function curve(peak, mean, peakHour, minutes = MINUTES_PER_DAY) {
  if (mean <= 0) throw new InputError(`the day's mean rate must be positive, got ${g(mean)} requests/s`);
  const hours = Array.from({ length: minutes }, (_, m) => m / MINUTES_PER_HOUR - peakHour);
  if (peak <= 2 * mean * (1 + 1e-12)) {
    const trough = troughRate(peak, mean);
    return hours.map((h) => diurnalRate(h, peak, trough));
  }
  const k = peakedness(peak / mean);
  return hours.map((h) => peak * ((1 + Math.cos(2 * Math.PI * h / HOURS_PER_DAY)) / 2) ** k);
}

// Each minute's burst lift (0 outside a burst).
export function lifts(x, seed, minutes = MINUTES_PER_DAY) {
  const rng = new Rng(seed), out = [];
  let left = 0, lift = 0.0;
  for (let m = 0; m < minutes; m++) {
    if (left === 0 && rng.uniform() < x.burst_chance_per_minute) {
      left = Math.max(1, roundHalfEven(rng.exponential(x.burst_mean_minutes)));
      lift = rng.uniform() * x.burst_max_lift;
    }
    out.push(left ? lift : 0.0);
    left = Math.max(0, left - 1);
  }
  return out;
}

const mod = (a, n) => ((a % n) + n) % n;  // Python's %: the sign of the divisor

export function shiftedMinutes(x, minutes = MINUTES_PER_DAY) {
  const start = x.shift_start_hour * MINUTES_PER_HOUR, length = x.shift_hours * MINUTES_PER_HOUR;
  return Array.from({ length: minutes }, (_, m) => mod(m % MINUTES_PER_DAY - start, MINUTES_PER_DAY) < length);
}

// One day of the curve with bursts (seed: the data's, or another for a backtest) and the mix shift:
// {rates_per_s, forecast_per_s, shifted}.
export function drawnDay(peak, mean, x, seed = null) {
  const base = curve(peak, mean, x.peak_hour);
  const bumps = lifts(x, seed === null ? x.seed : seed);
  return { rates_per_s: base.map((r, m) => r * (1 + bumps[m])), forecast_per_s: base, shifted: shiftedMinutes(x) };
}

// A trace's rates as the offered load; the forecast is still the workload's curve, the mix the workload's all day.
export function replayedDay(rates, peak, mean, x) {
  const base = curve(peak, mean, x.peak_hour, MINUTES_PER_DAY);
  return { rates_per_s: rates, forecast_per_s: rates.map((_, m) => base[m % MINUTES_PER_DAY]),
    shifted: rates.map(() => false) };
}

export const TRACE_HEADER = "requests_per_s";

// A trace of per-minute request rates (read_rate_trace): one rate in requests/s per line, minute 0 first (a
// first line `requests_per_s` is a header; blank lines are skipped). Anything else is one InputError naming the
// file and the line. `text` is the file's contents (the caller reads it).
export function readRateTrace(path, text) {
  const rates = [];
  text.split(/\r\n|\r|\n/).forEach((line, i) => {
    const n = i + 1, t = line.trim();
    if (!t || (n === 1 && t === TRACE_HEADER)) return;
    const rate = pyFloat(t);
    if (rate === null) throw new InputError(`${path}: line ${n}: expected one rate in requests/s per line, got ${pyRepr(line)}`);
    if (!Number.isFinite(rate)) throw new InputError(`${path}: line ${n}: the rate must be a finite number, got ${pyRepr(line)}`);
    if (rate < 0) throw new InputError(`${path}: line ${n}: the rate must not be negative, got ${pyRepr(line)}`);
    rates.push(rate);
  });
  if (!rates.length) throw new InputError(`${path}: no rates in the trace`);
  return rates;
}
