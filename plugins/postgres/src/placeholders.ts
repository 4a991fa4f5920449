import { pgError } from './errors.ts';

/** A statement with PostgreSQL's `$n` parameters, and the names behind them when it used named ones. */
export interface Numbered {
  text: string;
  /** For named parameters: the name of `$1`, `$2`, … (without prefix); undefined for positional ones. */
  names?: string[];
}

/**
 * Binds the `database` service's parameter syntax to PostgreSQL's: `?` becomes `$1`, `$2`, … in
 * order, and `:name`, `@name`, `$name` become one `$n` per distinct name. Nothing else in the
 * statement changes — this is parameter binding, not SQL translation: what differs between the
 * dialects is written per dialect by the plugin that owns the statement. String literals
 * (`'…'`, `E'…'`, `$tag$…$tag$`), quoted identifiers, comments and `::` casts are left as they
 * are, and a statement already in `$1` form passes through.
 *
 * @example
 * numberPlaceholders("SELECT * FROM t WHERE a = ? AND b = '?' AND c = ?"); // { text: "SELECT * FROM t WHERE a = $1 AND b = '?' AND c = $2" }
 * numberPlaceholders('INSERT INTO t VALUES (:a, :b, :a)'); // { text: 'INSERT INTO t VALUES ($1, $2, $1)', names: ['a', 'b'] }
 */
export function numberPlaceholders(sql: string): Numbered {
  let out = '';
  let from = 0;
  let positional = 0;
  const names: string[] = [];
  const n = sql.length;
  const emit = (at: number, end: number, replacement: string) => {
    out += sql.slice(from, at) + replacement;
    from = end;
  };
  for (let i = 0; i < n; i++) {
    const c = sql[i]!;
    if (c === "'") {
      const escapes = i > 0 && (sql[i - 1] === 'E' || sql[i - 1] === 'e') && !isWord(sql[i - 2]);
      i = skipQuoted(sql, i, "'", escapes);
    } else if (c === '"') {
      i = skipQuoted(sql, i, '"', false);
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      i = end === -1 ? n : end;
    } else if (c === '/' && sql[i + 1] === '*') {
      i = skipBlockComment(sql, i);
    } else if (c === '?') {
      emit(i, i + 1, `$${++positional}`);
    } else if (c === '$') {
      const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i, i + 64));
      if (tag) {
        const close = sql.indexOf(tag[0], i + tag[0].length);
        i = close === -1 ? n : close + tag[0].length - 1;
      } else if (isNameStart(sql[i + 1]) && !isWord(sql[i - 1])) {
        i = named(i);
      }
      // `$1`: already PostgreSQL's form
    } else if ((c === ':' || c === '@') && isNameStart(sql[i + 1]) && sql[i - 1] !== ':' && !isWord(sql[i - 1])) {
      i = named(i);
    }
  }
  if (positional && names.length) {
    throw pgError('ORYX_E_PG_QUERY', `A statement mixes ? and named parameters: ${sql.replace(/\s+/g, ' ').slice(0, 160)}`, {
      hint: 'Use either ? with an array of values, or :name with an object.',
    });
  }
  out += sql.slice(from);
  return names.length ? { text: out, names } : { text: out };

  function named(at: number): number {
    let end = at + 1;
    while (end < n && isWord(sql[end])) end++;
    const name = sql.slice(at + 1, end);
    let index = names.indexOf(name);
    if (index === -1) index = names.push(name) - 1;
    emit(at, end, `$${index + 1}`);
    return end - 1;
  }
}

function isNameStart(c: string | undefined): boolean {
  return c !== undefined && /[A-Za-z_]/.test(c);
}

function isWord(c: string | undefined): boolean {
  return c !== undefined && /[A-Za-z0-9_]/.test(c);
}

/** Index of the closing quote of the literal or identifier opened at `at` (doubled quotes stay inside). */
function skipQuoted(sql: string, at: number, quote: string, backslashEscapes: boolean): number {
  for (let i = at + 1; i < sql.length; i++) {
    const c = sql[i];
    if (backslashEscapes && c === '\\') i++;
    else if (c === quote) {
      if (sql[i + 1] === quote) i++;
      else return i;
    }
  }
  return sql.length;
}

/** Index of the last character of the block comment opened at `at` (PostgreSQL nests them). */
function skipBlockComment(sql: string, at: number): number {
  let depth = 0;
  for (let i = at; i < sql.length - 1; i++) {
    if (sql[i] === '/' && sql[i + 1] === '*') { depth++; i++; }
    else if (sql[i] === '*' && sql[i + 1] === '/') { depth--; i++; if (depth === 0) return i; }
  }
  return sql.length;
}
