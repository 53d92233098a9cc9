// The calculator's two charts (loaded by ui.js), as SVG text from a scenario's figures: the replica's
// memory as one bar, and the roofline per GPU with its axes ticked and the decode step's point labelled.
// Figures are formatted by `FMT` (forms.js: format.js, fmt.py's rule). The roofline is drawn at the
// width it is shown at, so its text is the page's size at every width.
(function () {
  "use strict";

  function memoryBar(s, FMT) {  // weights held, the batch's KV, free KV budget, reserve
    var total = s.memory_bytes, kv = s.batch * s.kv_bytes_per_seq_group;
    var parts = [["weights", s.weight_bytes_held, "Weights"], ["kv", kv, "KV cache at the batch"],
      ["free", Math.max(s.kv_budget_bytes - kv, 0), "KV budget unused"], ["reserve", s.reserve_bytes, "Reserve"]];
    var svg = '<svg class="gpu-calc__bar" viewBox="0 0 1000 40" preserveAspectRatio="none" role="img" aria-label="Memory of the replica: '
      + parts.map(function (p) { return p[2] + " " + FMT.bytes(p[1]); }).join(", ") + '">';
    var x = 0;
    parts.forEach(function (p) {
      var w = Math.max(0, Math.min(1000 - x, p[1] / total * 1000));
      svg += '<rect class="gpu-calc__seg--' + p[0] + '" x="' + x + '" y="0" width="' + w + '" height="40"></rect>';
      x += w;
    });
    var legend = parts.map(function (p) {
      return '<span class="gpu-calc__key"><i class="gpu-calc__seg--' + p[0] + '"></i>' + p[2] + ": " + FMT.bytes(p[1]) + "</span>";
    }).join(" ");
    return svg + "</svg><p class=\"gpu-calc__legend\">" + legend + " (of " + FMT.bytes(total) + ")</p>";
  }

  var log = Math.log10;
  function r1(x) { return Math.round(x * 10) / 10; }  // coordinates to a tenth of a pixel: shorter SVG text
  function text(x, y, words, cls) {
    return '<text x="' + r1(x) + '" y="' + r1(y) + '"' + (cls ? ' class="' + cls + '"' : "") + ">" + words + "</text>";
  }
  function line(x1, y1, x2, y2, cls) {
    return '<line class="' + cls + '" x1="' + r1(x1) + '" y1="' + r1(y1) + '" x2="' + r1(x2) + '" y2="' + r1(y2) + '"></line>';
  }

  // Per GPU: the bandwidth roof (intensity × B), the compute roof (P), and the decode step on them. Both
  // axes are logarithmic, ticked at powers of ten; the ranges hold the point, the knee and a decade of
  // roof on each side.
  function roofline(s, FMT, width) {
    var B = s.gpu_bandwidth_bytes_per_s, P = s.gpu_peak_flops, op = s.decode_intensity, knee = P / B;
    var at = Math.min(P, op * B);
    if (![B, P, op, at].every(function (v) { return Number.isFinite(v) && v > 0; })) return "";
    var W = Math.max(320, Math.round(width)), H = 280, left = 92, right = W - 26, top = 34, bottom = H - 48;
    var lx0 = Math.floor(log(Math.min(op, knee, 1))), lx1 = Math.max(Math.ceil(log(Math.max(op, knee) * 3)), lx0 + 2);
    var ly1 = log(P) + 0.3, ly0 = Math.floor(Math.min(log(at) - 0.3, log(P) - 2));
    function X(i) { return left + (log(i) - lx0) / (lx1 - lx0) * (right - left); }
    function Y(p) { return bottom - (log(p) - ly0) / (ly1 - ly0) * (bottom - top); }
    var out = '<svg class="gpu-calc__roof" viewBox="0 0 ' + W + " " + H + '" role="img" aria-label="Roofline per GPU: the decode step at '
      + FMT.num(op) + " FLOP per byte reaches " + FMT.flops(at) + " of " + FMT.flops(P) + '">';
    for (var i = lx0; i <= lx1; i++) {  // x ticks: 1, 10, 100, ... FLOP per byte
      out += line(X(Math.pow(10, i)), bottom, X(Math.pow(10, i)), top, "grid") + line(X(Math.pow(10, i)), bottom, X(Math.pow(10, i)), bottom + 5, "axis")
        + text(X(Math.pow(10, i)), bottom + 19, FMT.num(Math.pow(10, i)), "tick tick--x");
    }
    for (var j = Math.ceil(ly0); j <= Math.floor(ly1); j++) {  // y ticks: powers of ten of FLOP/s
      out += line(left, Y(Math.pow(10, j)), right, Y(Math.pow(10, j)), "grid") + line(left - 5, Y(Math.pow(10, j)), left, Y(Math.pow(10, j)), "axis")
        + text(left - 8, Y(Math.pow(10, j)) + 4, FMT.flops(Math.pow(10, j)), "tick tick--y");
    }
    var start = Math.max(Math.pow(10, lx0), Math.pow(10, ly0) / B);
    out += line(left, bottom, right, bottom, "axis") + line(left, top, left, bottom, "axis")
      + '<polyline class="roof" points="' + [[start, start * B], [knee, P], [Math.pow(10, lx1), P]].map(function (p) {
        return r1(X(p[0])) + "," + r1(Y(p[1]));
      }).join(" ") + '"></polyline>'
      + text(Math.min(Math.max(X(knee), left + 75), right - 75), Y(P) - 8, "balance " + FMT.num(knee) + " FLOP/B", "label label--knee")
      + '<circle class="point" cx="' + r1(X(op)) + '" cy="' + r1(Y(at)) + '" r="6"></circle>';
    // The point's label, two lines beside it: below it where there is room (the roof rises away to the
    // right), else above; to its right where the words fit, else to its left, else as far as they fit.
    var lines = ["decode at batch " + FMT.count(s.batch), FMT.num(op) + " FLOP/B, " + FMT.flops(at)];
    var wide = 7.2 * Math.max(lines[0].length, lines[1].length), px = X(op), py = Y(at);
    var x = px + 10 + wide <= right ? px + 10 : px - 10 - wide >= left ? px - 10 - wide : Math.max(left + 4, right - wide);
    var y = py + 42 <= bottom ? py + 22 : py - 28;
    out += text(x, y, lines[0], "label label--point") + text(x, y + 16, lines[1], "label label--point")
      + text(right, H - 8, "arithmetic intensity, FLOP per byte", "title title--x")
      + text(left - 86, 18, "attainable FLOP/s per GPU", "title title--y");
    return out + "</svg>";
  }

  window.GpuCharts = { memoryBar: memoryBar, roofline: roofline };
})();
