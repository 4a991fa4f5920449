/** A text rewrite applied to everything the audit writes. */
export interface Redactor {
  (text: string): Promise<string>;
  /** The same rewrite of several texts (a tool call's input and output) with one secret scan. */
  all?(texts: string[]): Promise<string[]>;
}

/** What the `redact` option accepts: patterns (a string is a literal secret) or a function. */
export type RedactOption = (RegExp | string)[] | ((text: string) => string);

export const REDACTED = '[REDACTED]';

type Scan = (text: string) => Promise<string[]>;
let scanner: Promise<Scan> | undefined;

/**
 * The secret formats of secretlint's recommended preset (a maintained scanner): AWS (access key
 * ids too), GCP service accounts, GitHub, Slack, OpenAI, Anthropic, npm, SendGrid, Shopify,
 * Linear and 1Password tokens, private keys, basic auth in URLs, database connection strings.
 * Loaded on first use. Returns the secret values found.
 */
async function loadScanner(): Promise<Scan> {
  const [{ lintSource }, { creator }, { secretLintProfiler }] = await Promise.all([
    import('@secretlint/core'), import('@secretlint/secretlint-rule-preset-recommend'), import('@secretlint/profiler'),
  ]);
  // secretlint's profiler (for its CLI's --profile) marks every rule of every scan and keeps each
  // mark forever, searching them all on the next one: a scan's cost grew with the number of scans
  // before it (62 ms per loop step after a few thousand). Fixed upstream in secretlint 13
  // (profiling opt-in), which needs Node 22; until then it is switched off here, as 13 does.
  secretLintProfiler.mark = () => {};
  const config = {
    rules: [{
      id: '@secretlint/secretlint-rule-preset-recommend', rule: creator,
      rules: [{ id: '@secretlint/secretlint-rule-aws', options: { enableIDScanRule: true } }],
    }],
  };
  return remembered(async (text) => {
    // A `secretlint-disable` comment in the text would switch the scanner off for what follows.
    const content = text.replace(/secretlint-(?:disable|enable)/g, (m) => '_'.repeat(m.length));
    const { messages } = await lintSource({ source: { content, filePath: '/audit.txt', ext: '.txt', contentType: 'text' }, options: { config, noPhysicFilePath: true } });
    return messages.flatMap((m) => {
      const values = Object.values(m.data ?? {}).filter((v): v is string => typeof v === 'string' && v.length >= 8 && text.includes(v));
      return values.length ? values : [text.slice(m.range[0], m.range[1])];
    });
  });
}

/** How many scanned texts {@link remembered} keeps, and the longest it keeps (so at most ~1 MB). */
const REMEMBERED = 256;
const REMEMBERED_CHARS = 4096;

/**
 * The scan with the results of the last {@link REMEMBERED} short texts kept, by exact text. A
 * scan is a function of the text alone, so a text seen again (an agent calling a tool with the
 * same arguments and getting the same answer, a retried call) gets the same secrets back without
 * secretlint's ~100 µs; the least recently used result goes first.
 */
function remembered(scan: Scan): Scan {
  const kept = new Map<string, string[]>();
  return async (text) => {
    if (text.length > REMEMBERED_CHARS) return scan(text);
    const known = kept.get(text);
    if (known) {
      kept.delete(text);
      kept.set(text, known);
      return [...known];
    }
    const found = await scan(text);
    if (kept.size >= REMEMBERED) kept.delete(kept.keys().next().value!);
    kept.set(text, [...found]);
    return found;
  };
}

/** Key formats the preset does not cover: OpenAI-style `sk-…` (project keys too), Stripe secret keys, bearer tokens. */
const PREFIXED = /\b(?:sk-[A-Za-z0-9_-]{20,}|[sr]k_(?:live|test)_[A-Za-z0-9]{10,})|(?<=\bBearer\s+)[A-Za-z0-9._~+/=-]{8,}/g;

/**
 * `NAME=value`, `NAME: value`, `"name": "value"`: a name, a `=` or `:`, then a quoted or bare
 * value (a bare one may start with an auth scheme: `Authorization: Bearer …`). Bounded
 * repetitions keep it linear; the name is judged by {@link secretName}.
 */
const ASSIGNMENT = /([A-Za-z][\w.-]{0,80})(["']?[ \t]{0,16}[:=][ \t]{0,16})(?:(["'])([^"'\r\n]{1,4096})\3|((?:(?:Bearer|Basic|Token)[ \t]+)?[^\s"'&,;<>{}()[\]]{1,4096}))/g;
const SECRET_WORDS = new Set(['token', 'secret', 'password', 'passwd', 'passphrase', 'credential', 'credentials', 'apikey', 'authorization', 'cookie']);
const SECRET_SUFFIXES = new Set(['key', 'pwd', 'pass', 'auth']);

/**
 * Whether a name says its value is a credential: its last word (split at `_`, `-`, `.` and
 * camelCase) is `token`, `secret`, `password`, …; or `key`, `pwd`, `pass`, `auth` after another
 * word (`STRIPE_SECRET_KEY`, `DB_PWD`, but not `key` or `PWD` alone).
 */
export function secretName(name: string): boolean {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase().split(/[_.-]+/).filter(Boolean);
  const last = words.at(-1) ?? '';
  return SECRET_WORDS.has(last) || (words.length > 1 && SECRET_SUFFIXES.has(last));
}

/** Redacts the values of credential assignments; after a name that is not one, the search goes on inside its value (`url=https://…?api_key=…`). */
function redactAssignments(text: string): string {
  const re = new RegExp(ASSIGNMENT.source, 'g');
  let out = '';
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const [match, name, sep, quote, quoted, bare] = m as unknown as [string, string, string, string | undefined, string | undefined, string | undefined];
    if (!secretName(name)) {
      re.lastIndex = m.index + name.length + sep.length;
      continue;
    }
    const value = quoted !== undefined ? `${quote}${REDACTED}${quote}` : `${/^(?:Bearer|Basic|Token)[ \t]+/.exec(bare!)?.[0] ?? ''}${REDACTED}`;
    out += text.slice(last, m.index) + name + sep + value;
    last = m.index + match.length;
  }
  return out + text.slice(last);
}

/**
 * Builds the redactor, applied in this order: `exact` (the kernel's registered secrets); unless
 * `defaults` is false, secretlint's recommended rules, the key prefixes they miss and
 * credential assignments (`DB_PASSWORD=…`, `"api_key": "…"`); then the user's patterns or
 * function. Every match becomes `[REDACTED]`.
 *
 * @example
 * const redact = createRedactor({ redact: [/internal-\d+/, 'hunter2'] });
 * await redact('DB_PASSWORD=hunter2hunter2 and internal-42'); // 'DB_PASSWORD=[REDACTED] and [REDACTED]'
 */
export function createRedactor(options: { redact?: RedactOption; defaults?: boolean; exact?: (text: string) => string } = {}): Redactor {
  const before: ((text: string) => string)[] = [];
  const steps: ((text: string) => string)[] = [];
  if (options.exact) before.push(options.exact);
  const scanning = options.defaults !== false;
  if (scanning) steps.push(redactAssignments, (t) => t.replace(PREFIXED, REDACTED));
  if (typeof options.redact === 'function') steps.push(options.redact);
  else {
    for (const p of options.redact ?? []) {
      if (p === '') continue;
      const pattern = typeof p === 'string'
        ? new RegExp(p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'g')
        : new RegExp(p.source, p.flags.includes('g') ? p.flags : `${p.flags}g`);
      steps.push((t) => t.replace(pattern, REDACTED));
    }
  }
  // The secret scan (secretlint) is the costly step: several texts share one scan, their
  // concatenation, and every secret it finds is cut from each of them.
  const all = async (texts: string[]): Promise<string[]> => {
    let out = texts.map((text) => before.reduce((t, step) => step(t), text));
    if (scanning) {
      const scan = await (scanner ??= loadScanner());
      const secrets = new Set(await scan(out.join('\n\n')));
      out = out.map((text) => { for (const secret of secrets) text = text.split(secret).join(REDACTED); return text; });
    }
    return out.map((text) => String(steps.reduce((t, step) => step(t), text)));
  };
  return Object.assign(async (text: string) => (await all([text]))[0]!, { all });
}
