/** A text rewrite applied to everything the audit writes. */
export type Redactor = (text: string) => string;

/** What the `redact` option accepts: patterns (a string is a literal secret) or a function. */
export type RedactOption = (RegExp | string)[] | Redactor;

export const REDACTED = '[REDACTED]';

/**
 * Secrets redacted by default: API keys (OpenAI/Anthropic `sk-…`, AWS `AKIA…`, GitHub
 * `ghp_…`/`github_pat_…`, Slack `xox…-`), `Bearer <token>`, and the value of anything that
 * looks like `api_key=…`, `"access_token": "…"`, `password: …`.
 */
export const DEFAULT_REDACTIONS: readonly { pattern: RegExp; replace: string }[] = Object.freeze([
  { pattern: /\bsk-[A-Za-z0-9_-]{16,}/g, replace: REDACTED },
  { pattern: /\bAKIA[0-9A-Z]{16}\b/g, replace: REDACTED },
  { pattern: /\bgh[pousr]_[A-Za-z0-9]{30,}/g, replace: REDACTED },
  { pattern: /\bgithub_pat_[A-Za-z0-9_]{20,}/g, replace: REDACTED },
  { pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, replace: REDACTED },
  { pattern: /\b(Bearer)\s+[A-Za-z0-9._~+/=-]{6,}/gi, replace: `$1 ${REDACTED}` },
  {
    pattern: /\b((?:x[_-])?api[_-]?key|apikey|access[_-]?token|auth[_-]?token|refresh[_-]?token|client[_-]?secret|secret|password|passwd)(["']?\s*[:=]\s*["']?)([^\s"'&,;}]+)/gi,
    replace: `$1$2${REDACTED}`,
  },
]);

/**
 * Builds the redactor: the defaults (unless `defaults` is false), then the user's patterns
 * or function.
 *
 * @example
 * const redact = createRedactor({ redact: [/internal-\d+/, 'hunter2'] });
 * redact('key sk-abcdefghijklmnopqrstuv and hunter2'); // 'key [REDACTED] and [REDACTED]'
 */
export function createRedactor(options: { redact?: RedactOption; defaults?: boolean } = {}): Redactor {
  const steps: Redactor[] = [];
  if (options.defaults !== false) {
    for (const { pattern, replace } of DEFAULT_REDACTIONS) steps.push((t) => t.replace(pattern, replace));
  }
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
  return (text) => {
    let out = text;
    for (const step of steps) out = step(out);
    return String(out);
  };
}
