import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { OryxError } from '@oryxos/provider-spec';

/** The files read, most specific first: `.env.local` (a machine's own) wins over `.env`. */
export const DOT_ENV_FILES = ['.env.local', '.env'] as const;

/** What {@link loadDotEnv} did: the files it read, the names it set, and every value it read (to mask). */
export interface DotEnv {
  files: string[];
  /** Names set in `process.env` (not already set by the real environment). */
  set: string[];
  /** Every value the files hold, set or not: each is a secret wherever OryxOS prints or stores text. */
  values: string[];
}

/**
 * Loads `.env.local` then `.env` from `dir` into `process.env`, as the ecosystem's tools do
 * (dotenv, Vite, Next.js): a variable the real environment already has is never overridden,
 * and `.env.local` wins over `.env`. The values are returned so the caller registers them as
 * secrets. A file that exists but cannot be read is `ORYX_E_CLI_DOTENV`, naming it.
 *
 * @example
 * const env = await loadDotEnv('/proj'); // { files: ['/proj/.env'], set: ['OPENAI_API_KEY'], values: ['sk-…'] }
 */
export async function loadDotEnv(dir: string, env: NodeJS.ProcessEnv = process.env): Promise<DotEnv> {
  const out: DotEnv = { files: [], set: [], values: [] };
  for (const name of DOT_ENV_FILES) {
    const file = path.join(dir, name);
    const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined;
      throw new OryxError('ORYX_E_CLI_DOTENV', `Could not read ${file}: ${error.message}`, { hint: `Make ${name} readable, or remove it.`, cause: error });
    });
    if (text === undefined) continue;
    // Node's own parser (the one `node --env-file` uses): lines that are not NAME=value are skipped.
    const parsed = parseEnv(text) as Record<string, string>;
    out.files.push(file);
    for (const [key, value] of Object.entries(parsed)) {
      out.values.push(value);
      if (env[key] !== undefined) continue;
      env[key] = value;
      out.set.push(key);
    }
  }
  return out;
}
