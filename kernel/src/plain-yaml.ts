/**
 * The plain subset of YAML most agent files and `mcp_servers.yaml` are written in, read without
 * loading the `yaml` package (whose ~75 modules cost a read command ~50 ms of CPU): mappings by
 * indentation, `key: value` lines, `- item` lists and `[a, b]` lists of plain scalars, `{}` and
 * `[]`, whole-line comments. Scalars resolve as on YAML's core schema (null, booleans, integers,
 * decimals, else a string). Anything else — quotes, block scalars, anchors, tags, end-of-line
 * comments, a duplicate key, a number in another notation — returns undefined, and the caller
 * parses the text with the real parser, which also gives the error messages. So this path never
 * decides what a text means differently from `yaml`: it only answers the texts it is sure of
 * (a test compares the two on generated documents).
 */

type Value = string | number | boolean | null | Value[] | { [key: string]: Value };
/** Undefined from a helper: "not plain, use the real parser". */
const NO = undefined;

const KEY = /^([A-Za-z_][A-Za-z0-9_-]*):(?: (.*))?$/;
const INT = /^-?(0|[1-9][0-9]*)$/;
const DECIMAL = /^-?(0|[1-9][0-9]*)\.[0-9]+$/;
const NOT_STRING = new Set(['~', 'null', 'Null', 'NULL', 'true', 'True', 'TRUE', 'false', 'False', 'FALSE']);

/** A plain scalar's value on the core schema, or undefined when it is not one this reader is sure of. */
function scalar(text: string, inFlow: boolean): Value | undefined {
  const s = text.trim();
  if (s === '~' || s === 'null' || s === 'Null' || s === 'NULL') return null;
  if (s === 'true' || s === 'True' || s === 'TRUE') return true;
  if (s === 'false' || s === 'False' || s === 'FALSE') return false;
  if ((INT.test(s) && s !== '-0') || DECIMAL.test(s)) {
    const n = Number(s);
    return Number.isSafeInteger(n) || DECIMAL.test(s) ? n : NO;
  }
  // Other numbers (.5, 1e3, 0x1f, 1_000, .inf), indicators, quotes, comments and controls: the real parser.
  if (s === '' || /^[+.0-9?:,[\]{}#&*!|>'"%@`]|^-(?![A-Za-z])/.test(s) || /: |:$| #|[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff]/.test(s)) return NO;
  if (inFlow && /[,[\]{}]/.test(s)) return NO;
  return s;
}

/** A value after `key: ` on the same line. */
function inline(text: string): Value | undefined {
  const s = text.trim();
  if (s === '{}') return {};
  if (s === '[]') return [];
  if (s.startsWith('[')) {
    if (!s.endsWith(']')) return NO;
    const items = s.slice(1, -1).split(',');
    const out: Value[] = [];
    for (const item of items) {
      const v = scalar(item, true);
      if (v === NO || item.trim() === '') return NO;
      out.push(v);
    }
    return out;
  }
  return scalar(s, false);
}

interface Line { indent: number; text: string }

/**
 * The data of a plain YAML text (a mapping at the top), or undefined when the text is not in
 * the plain subset and must go through the real parser. An empty text (only comments) is `{}`.
 *
 * @example
 * parsePlainYaml('description: x\ntools: [read_file]') // { description: 'x', tools: ['read_file'] }
 * parsePlainYaml('name: "quoted"') // undefined: the real parser decides
 */
export function parsePlainYaml(source: string): Record<string, unknown> | undefined {
  const lines: Line[] = [];
  for (const raw of source.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (/^\s*(#|$)/.test(line)) continue;
    if (/\t/.test(line) || /^(---|\.\.\.)/.test(line)) return NO;
    const text = line.trimStart();
    lines.push({ indent: line.length - text.length, text: text.trimEnd() });
  }
  if (lines.length === 0) return {};
  let i = 0;

  const mapping = (indent: number): Record<string, Value> | undefined => {
    const out: Record<string, Value> = {};
    while (i < lines.length && lines[i]!.indent === indent) {
      const m = KEY.exec(lines[i]!.text);
      if (!m || m[1] === '__proto__' || NOT_STRING.has(m[1]!) || Object.hasOwn(out, m[1]!)) return NO;
      i++;
      const rest = m[2]?.trim() ?? '';
      let value: Value | undefined;
      if (rest !== '') {
        value = inline(rest);
        // A more indented line after a value on the key's line continues it (a multi-line scalar).
        if (value === NO || (i < lines.length && lines[i]!.indent > indent)) return NO;
      } else if (i < lines.length && lines[i]!.text.startsWith('- ') && lines[i]!.indent >= indent) {
        value = sequence(lines[i]!.indent);
      } else if (i < lines.length && lines[i]!.indent > indent) {
        value = mapping(lines[i]!.indent);
      } else {
        value = null;
      }
      if (value === NO) return NO;
      out[m[1]!] = value;
    }
    return out;
  };

  const sequence = (indent: number): Value[] | undefined => {
    const out: Value[] = [];
    while (i < lines.length && lines[i]!.indent === indent && lines[i]!.text.startsWith('- ')) {
      const v = scalar(lines[i]!.text.slice(2), false);
      if (v === NO) return NO;
      out.push(v);
      i++;
    }
    return i < lines.length && lines[i]!.indent > indent ? NO : out;
  };

  if (lines[0]!.indent !== 0) return NO;
  const data = mapping(0);
  return data !== NO && i === lines.length ? data : NO;
}
