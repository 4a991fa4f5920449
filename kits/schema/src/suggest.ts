/**
 * "Did you mean" for names a person typed: config keys, frontmatter keys, tool names.
 */

/** Edit distance with transpositions (optimal string alignment), case-insensitive. */
function distance(a: string, b: string): number {
  a = a.toLowerCase();
  b = b.toLowerCase();
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The candidate closest to `word`, when it is close enough to be a likely typo (about one
 * edit in three characters); undefined otherwise.
 *
 * @example
 * closest('defaultAgnet', ['plugins', 'defaultAgent']) // 'defaultAgent'
 */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const dist = distance(word, c);
    if (dist < bestDistance) { best = c; bestDistance = dist; }
  }
  return best !== undefined && bestDistance <= Math.max(1, Math.floor(Math.max(word.length, best.length) / 3)) ? best : undefined;
}

/**
 * ` (did you mean "x"?)` for a likely typo of one of `candidates`, else the empty string.
 *
 * @example
 * `unknown tool "list_dirr"${didYouMean('list_dirr', ['list_dir'])}` // unknown tool "list_dirr" (did you mean "list_dir"?)
 */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const best = closest(word, candidates);
  return best ? ` (did you mean "${best}"?)` : '';
}

/**
 * The 1-based line of `key:` in a YAML or object-literal source text, for pointing at a typo.
 * Undefined when the text does not show it on a line of its own.
 */
export function lineOfKey(text: string, key: string): number | undefined {
  const escaped = key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const re = new RegExp(`^\\s*['"]?${escaped}['"]?\\s*:`);
  const lines = text.split('\n');
  const i = lines.findIndex((l) => re.test(l));
  return i === -1 ? undefined : i + 1;
}

/**
 * A name against an allow-list entry (`tools:`, `skills:` of AGENT.md): `*` is a wildcard,
 * everything else literal.
 *
 * @example
 * matchesToolPattern('fs__read_file', 'fs__*'); // true
 */
export function matchesToolPattern(name: string, pattern: string): boolean {
  if (!pattern.includes('*')) return name === pattern;
  return new RegExp(`^${pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`).test(name);
}
