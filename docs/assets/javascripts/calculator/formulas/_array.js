// What the Python formulas get from the language (macros/engine/formulas/_array.py and Python's `//`):
// the JavaScript takes plain numbers only, so maximum and minimum are Math.max and Math.min, and
// floor division is written out.

// Python's float floor division (CPython's float_floor_div), so a max batch at an exact multiple
// rounds as the Python engine rounds it: Math.floor(a / b) differs where a / b rounds up to a whole number.
export function floorDiv(a, b) {
  let mod = a % b;
  let div = (a - mod) / b;
  if (mod && (b < 0) !== (mod < 0)) { mod += b; div -= 1; }
  if (!div) return 0;
  let floordiv = Math.floor(div);
  if (div - floordiv > 0.5) floordiv += 1;
  return floordiv;
}
