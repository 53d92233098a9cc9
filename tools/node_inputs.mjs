// What the Node command line (gpu_math.mjs) reads from disk, with no Python: a text file, a TOML workload file
// (smol-toml, pinned in tools/package-lock.json), a Hugging Face config.json, and the catalog that
// tools/node_catalog.py wrote from macros/data/ (gpu_math_catalog.json), refused when the data changed since.
// Errors are InputErrors with the words macros/engine/specs.py and hf_config.py use.

import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync, realpathSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

import { modelFromConfig } from "../docs/assets/javascripts/calculator/model/hf_config.js";
import { InputError } from "../docs/assets/javascripts/calculator/rules.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
// smol-toml comes from tools/package-lock.json (make js-tools); without it only reading a TOML file fails, in one line.
const toml = await import("smol-toml").catch(() => null);
export const CATALOG = join(ROOT, "tools", "gpu_math_catalog.json");
export const CATALOG_TARGET = "make generated";

// A path as errors name it (specs.display_path): relative to the project when inside it, else as given
// (as Python's Path writes it: no "." segments, no doubled or trailing slashes).
export function displayPath(path) {
  let full = resolve(path);
  try { full = realpathSync(full); } catch { /* a missing file is named all the same */ }
  const inside = relative(realpathSync(ROOT), full);
  if (inside && !inside.startsWith("..") && !inside.startsWith(sep)) return inside;
  const parts = path.split("/").filter((part, n) => part !== "." && (part !== "" || n === 0));
  return parts.join("/") || (path.startsWith("/") ? "/" : ".");
}

// The index of the first byte that does not start a well-formed UTF-8 sequence (Python's exc.start), or -1.
function badUtf8(bytes) {
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i];
    if (b < 0x80) { i += 1; continue; }
    // The sequence's length and the range its second byte must fall in (Unicode's table 3-7).
    const [n, lo, hi] = b >= 0xc2 && b <= 0xdf ? [2, 0x80, 0xbf] : b === 0xe0 ? [3, 0xa0, 0xbf]
      : b === 0xed ? [3, 0x80, 0x9f] : b >= 0xe1 && b <= 0xef ? [3, 0x80, 0xbf] : b === 0xf0 ? [4, 0x90, 0xbf]
        : b >= 0xf1 && b <= 0xf3 ? [4, 0x80, 0xbf] : b === 0xf4 ? [4, 0x80, 0x8f] : [0, 0, 0];
    if (!n || i + n > bytes.length || bytes[i + 1] < lo || bytes[i + 1] > hi) return i;
    for (let k = 2; k < n; k++) if ((bytes[i + k] & 0xc0) !== 0x80) return i;
    i += n;
  }
  return -1;
}

const STRERROR = { EACCES: "Permission denied", ELOOP: "Too many levels of symbolic links", ENOTDIR: "Not a directory" };

// A text file's contents (specs.read_text): missing, a directory, unreadable or not UTF-8 is one line naming it.
export function readText(path) {
  const where = displayPath(path);
  let bytes;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    if (e.code === "ENOENT") throw new InputError(`${where}: file not found`);
    if (e.code === "EISDIR") throw new InputError(`${where}: is a directory, not a file`);
    throw new InputError(`${where}: cannot be read (${STRERROR[e.code] ?? e.code})`);
  }
  const bad = badUtf8(bytes);
  if (bad >= 0) throw new InputError(`${where}: not UTF-8 text (byte ${bad} is 0x${bytes[bad].toString(16).padStart(2, "0")})`);
  return bytes.toString("utf8");
}

// TOML's values as the checks read them: a date or time as {$toml: its Python type's name}, so the rules
// refuse it by name; an integer too large for a double as the nearest double.
function plain(value) {
  if (value instanceof toml.TomlDate) return { $toml: value.isDateTime() ? "datetime" : value.isDate() ? "date" : "time" };
  if (typeof value === "bigint") return Number(value);
  if (Array.isArray(value)) return value.map(plain);
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return value;
}

// A TOML file as read (specs.read_toml): {where: how errors name it, raw: its tables}.
export function readToml(path) {
  if (toml === null) throw new InputError("smol-toml is not installed (tools/node_modules): run `make js-tools`");
  const { TomlError, parse } = toml;
  const where = displayPath(path), text = readText(path);
  try {
    return { where, raw: plain(parse(text, { integersAsBigInt: "asNeeded" })) };
  } catch (e) {
    if (!(e instanceof TomlError)) throw e;
    const problem = e.message.split("\n")[0].replace(/^Invalid TOML document: /, "");
    throw new InputError(`${where}: not valid TOML: ${problem} (at line ${e.line}, column ${e.column})`);
  }
}

// JSON as Python's json module reads it: NaN, Infinity and -Infinity are numbers (the rules then refuse them).
const NOT_FINITE = { NaN, Infinity, "-Infinity": -Infinity };
const MARK = "\u0000not-finite:";
function parseJson(text) {
  let out = "", inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      out += c;
      if (c === "\\") out += text[++i] ?? "";
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') { inString = true; out += c; continue; }
    const word = Object.keys(NOT_FINITE).find((w) => text.startsWith(w, i));
    if (word) { out += JSON.stringify(MARK + word); i += word.length - 1; continue; }
    out += c;
  }
  return JSON.parse(out, (k, v) => (typeof v === "string" && v.startsWith(MARK) ? NOT_FINITE[v.slice(MARK.length)] : v));
}

// The model a config.json describes (hf_config.load_hf_config), named by its folder when the file is
// config.json, else by its own name.
export function readConfig(cat, path) {
  const where = displayPath(path), text = readText(path);
  let raw;
  try {
    raw = parseJson(text);
  } catch (e) {
    throw new InputError(`${where}: not valid JSON: ${e.message}`);
  }
  const name = basename(path);
  const key = name === "config.json" ? basename(dirname(resolve(path))) : name.replace(/\.[^.]*$/, "");
  return modelFromConfig(cat, raw, where, key);
}

// The files a catalog was made from (its `sources`: paths, or a folder's *.toml), each as "sha256  path",
// and the sha256 of those lines: tools/node_catalog.py's data_sha256, written the same way.
export function dataSha256(sources, root = ROOT) {
  const files = [];
  for (const source of sources) {
    if (!source.endsWith("/*.toml")) { files.push(source); continue; }
    const folder = source.slice(0, -"/*.toml".length);
    if (existsSync(join(root, folder))) {
      files.push(...readdirSync(join(root, folder)).filter((f) => f.endsWith(".toml")).map((f) => `${folder}/${f}`));
    }
  }
  const lines = files.sort().map((file) => {
    const path = join(root, file);
    const digest = existsSync(path) ? createHash("sha256").update(readFileSync(path)).digest("hex") : "missing";
    return `${digest}  ${file}\n`;
  });
  return createHash("sha256").update(lines.join("")).digest("hex");
}

// The committed catalog, refused (one line naming the make target) when the data it came from has changed.
export function readCatalog(path = CATALOG) {
  const where = displayPath(path);
  let made;
  try {
    made = JSON.parse(readText(path));
  } catch (e) {
    if (e instanceof InputError) throw new InputError(`${e.message}: run \`${CATALOG_TARGET}\``);
    throw new InputError(`${where}: not valid JSON: run \`${CATALOG_TARGET}\``);
  }
  if (made.data_sha256 !== dataSha256(made.sources)) {
    throw new InputError(`${where} is out of date: the data it was made from (macros/data/) has changed; `
      + `run \`${CATALOG_TARGET}\``);
  }
  return made.catalog;
}
