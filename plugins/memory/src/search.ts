const CJK = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}';
const CJK_ANY = new RegExp(`[${CJK}]`, 'u');
const CJK_SPLIT = new RegExp(`([${CJK}]+)`, 'u');
const RUNS = /[\p{L}\p{N}]+/gu;

const STOP = new Set((
  'a an and are as at be been but by can could did do does for from had has have he her his how i if in into is it its '
  + 'me my of on or our she so than that the their them then there these they this to was we were what when where which '
  + 'who why will with would you your'
).split(' '));

/** Folds English plurals and possessives so `cats`, `cat's` and `cat` meet. */
function stem(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith('s') && !/(?:ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

/**
 * Splits text into search terms: words for alphabetic scripts (lower-cased, NFKC, plurals
 * folded, common English stop words dropped), and for Chinese, Japanese and Korean runs
 * every character plus every pair of neighbouring characters, since those scripts do not
 * put spaces between words (`用户喜欢` → 用 户 喜 欢 用户 户喜 喜欢).
 *
 * @example
 * tokenize('The user likes 绿茶'); // ['user', 'like', '绿', '绿茶', '茶']
 */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  const normalized = text.normalize('NFKC').toLowerCase().replace(/['\u2019]s\b/g, '');
  const word = (w: string) => { if (w && !STOP.has(w)) out.push(stem(w)); };
  for (const [run] of normalized.matchAll(RUNS)) {
    // Most runs have no CJK at all; only those are split, which keeps tokenizing cheap.
    if (!CJK_ANY.test(run)) { word(run); continue; }
    run.split(CJK_SPLIT).forEach((part, i) => {
      if (i % 2 === 0) { word(part); return; }
      const chars = [...part];
      for (let k = 0; k < chars.length; k++) {
        out.push(chars[k]!);
        if (k + 1 < chars.length) out.push(chars[k]! + chars[k + 1]!);
      }
    });
  }
  return out;
}

/** A search result: the document's position in the input and its score. */
export interface Hit { index: number; score: number }

/**
 * Ranks documents against a query with Okapi BM25 (k1 1.2, b 0.75) over {@link tokenize}
 * terms. Only documents that share a term with the query are returned, best first; ties go
 * to the later document (the newer entry).
 *
 * @example
 * rank(['likes green tea', 'owns a cat'], 'tea'); // [{ index: 0, score: 0.69 }]
 */
export function rank(documents: string[], query: string, limit = 5): Hit[] {
  const terms = [...new Set(tokenize(query))];
  if (!terms.length || !documents.length) return [];
  const docs = documents.map((d) => {
    const tf = new Map<string, number>();
    let length = 0;
    for (const t of tokenize(d)) { tf.set(t, (tf.get(t) ?? 0) + 1); length++; }
    return { tf, length };
  });
  const avg = docs.reduce((n, d) => n + d.length, 0) / docs.length || 1;
  const k1 = 1.2;
  const b = 0.75;
  const idf = new Map(terms.map((t) => {
    const df = docs.filter((d) => d.tf.has(t)).length;
    return [t, Math.log(1 + (docs.length - df + 0.5) / (df + 0.5))];
  }));
  const hits: Hit[] = [];
  docs.forEach((d, index) => {
    let score = 0;
    for (const t of terms) {
      const f = d.tf.get(t);
      if (f) score += idf.get(t)! * (f * (k1 + 1)) / (f + k1 * (1 - b + b * d.length / avg));
    }
    if (score > 0) hits.push({ index, score });
  });
  hits.sort((x, y) => y.score - x.score || y.index - x.index);
  return hits.slice(0, Math.max(0, limit));
}
