/**
 * Canonical JSON: object keys sorted, `undefined` left out, so two values that differ only in
 * key order give the same text.
 *
 * @example
 * canonicalJson({ b: 1, a: [2, { d: 3, c: 4 }] }) // '{"a":[2,{"c":4,"d":3}],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * SHA-256 (hex) of a value's canonical JSON: what an approval and a tool call's start mark are
 * bound to, so the same arguments in another key order are the same call.
 *
 * @example
 * argsHash({ path: 'a.txt' }) === argsHash({ path: 'a.txt' }) // true
 */
export function argsHash(args: unknown): string {
  // node:crypto is fetched at the first hash, not imported: the kernel loads this kit, and a read
  // command (`oryx agents`) that never hashes would otherwise load all of Node's crypto (~5 ms of a
  // ~120 ms start; test/help.test.ts holds it). `hash` is Node's one-shot digest (Node ≥ 20.12):
  // 0.45 µs where createHash, update and digest take 1.44 (a call's start mark hashes every call).
  return process.getBuiltinModule('node:crypto').hash('sha256', canonicalJson(args), 'hex');
}
