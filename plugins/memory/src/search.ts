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

const K1 = 1.2;
const B = 0.75;

/**
 * An inverted index of documents for BM25: each document is tokenized once, when the index is
 * built, and a query touches only the postings of its own terms. Several indexes (a MEMORY.md
 * and its rotated archive files) are searched together by {@link searchIndexes}, with document
 * counts and lengths summed over all of them, as if they were one collection.
 *
 * @example
 * const index = new SearchIndex(['likes green tea', 'owns a cat']);
 * searchIndexes([index], 'tea'); // [{ source: 0, index: 0, score: 0.69 }]
 */
export class SearchIndex {
  /** term → [document, frequency, document, frequency, …] */
  readonly postings = new Map<string, number[]>();
  readonly lengths: Uint32Array;
  readonly totalLength: number;

  constructor(documents: readonly string[]) {
    this.lengths = new Uint32Array(documents.length);
    let total = 0;
    documents.forEach((d, doc) => {
      const tf = new Map<string, number>();
      const terms = tokenize(d);
      for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1);
      for (const [t, f] of tf) {
        const list = this.postings.get(t);
        if (list) list.push(doc, f);
        else this.postings.set(t, [doc, f]);
      }
      this.lengths[doc] = terms.length;
      total += terms.length;
    });
    this.totalLength = total;
  }

  get size(): number { return this.lengths.length; }
}

/** A hit in one of several indexes: which index (`source`), which document, its score. */
export interface SourceHit extends Hit { source: number }

/**
 * Okapi BM25 (k1 1.2, b 0.75) over several indexes as one collection. Only documents that
 * share a term with the query are returned, best first; ties go to the later document (a
 * later index, or later in its index: the newer entry).
 */
export function searchIndexes(indexes: readonly SearchIndex[], query: string, limit = 5): SourceHit[] {
  const terms = [...new Set(tokenize(query))];
  const count = indexes.reduce((n, x) => n + x.size, 0);
  if (!terms.length || !count || limit <= 0) return [];
  const avg = indexes.reduce((n, x) => n + x.totalLength, 0) / count || 1;
  const scores = indexes.map(() => undefined as Float64Array | undefined);
  for (const t of terms) {
    let df = 0;
    for (const x of indexes) df += (x.postings.get(t)?.length ?? 0) / 2;
    if (!df) continue;
    const idf = Math.log(1 + (count - df + 0.5) / (df + 0.5));
    indexes.forEach((x, source) => {
      const list = x.postings.get(t);
      if (!list) return;
      const acc = (scores[source] ??= new Float64Array(x.size));
      for (let i = 0; i < list.length; i += 2) {
        const f = list[i + 1]!;
        acc[list[i]!]! += idf * (f * (K1 + 1)) / (f + K1 * (1 - B + B * x.lengths[list[i]!]! / avg));
      }
    });
  }
  // The best `limit`, kept sorted as they come: later documents win ties, so scan newest first.
  const better = (a: SourceHit, b: SourceHit) => a.score > b.score || (a.score === b.score && (a.source > b.source || (a.source === b.source && a.index > b.index)));
  const top: SourceHit[] = [];
  for (let source = scores.length - 1; source >= 0; source--) {
    const acc = scores[source];
    if (!acc) continue;
    for (let index = acc.length - 1; index >= 0; index--) {
      const score = acc[index]!;
      if (score <= 0 || (top.length === limit && score <= top[top.length - 1]!.score)) continue;
      const hit = { source, index, score };
      let at = top.length;
      while (at > 0 && better(hit, top[at - 1]!)) at--;
      top.splice(at, 0, hit);
      if (top.length > limit) top.pop();
    }
  }
  return top;
}

/**
 * Ranks documents against a query with Okapi BM25 (k1 1.2, b 0.75) over {@link tokenize}
 * terms. Only documents that share a term with the query are returned, best first; ties go
 * to the later document (the newer entry).
 *
 * @example
 * rank(['likes green tea', 'owns a cat'], 'tea'); // [{ index: 0, score: 0.69 }]
 */
export function rank(documents: string[], query: string, limit = 5): Hit[] {
  return searchIndexes([new SearchIndex(documents)], query, limit).map(({ index, score }) => ({ index, score }));
}
