import { chmod, link, mkdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { webError } from './errors.ts';

/** The file, inside the workspace, that keeps the generated token. */
export const TOKEN_FILE = 'web-token';

/** Shortest token accepted, from the options, ORYX_WEB_TOKEN or the file. */
export const MIN_TOKEN = 16;

/** What {@link loadTokenFile} found or did. */
export interface TokenFileResult {
  token: string;
  /** True when the file was written now (first start, or a rotation). */
  created: boolean;
  /** True when the file was readable by group or others and its mode was set back to 0600. */
  tightened: boolean;
}

/** 32 random bytes (256 bits), base64url: safe in a URL fragment and a header. */
export function newToken(): string {
  // node:crypto loads on first use, not with the plugin: a read command (`oryx agents`) never needs it.
  return process.getBuiltinModule('node:crypto').randomBytes(32).toString('base64url');
}

/**
 * Reads the token kept in `file`, creating it (mode 0600) with a new random token when it does
 * not exist, or replacing it when `rotate` is set. Creation is atomic and never overwrites: of
 * two servers starting at once, both end up with the token the first one wrote. A file that
 * group or others can read is set back to 0600 (`tightened`), since the token may have been seen.
 *
 * @example
 * const { token } = await loadTokenFile(path.join(workspaceDir, TOKEN_FILE));
 */
export async function loadTokenFile(file: string, options: { rotate?: boolean } = {}): Promise<TokenFileResult> {
  if (!options.rotate) {
    const existing = await readToken(file);
    if (existing !== undefined) return { token: existing, created: false, tightened: await tighten(file) };
  }
  const token = newToken();
  const tmp = `${file}.${process.pid}.${process.getBuiltinModule('node:crypto').randomBytes(4).toString('hex')}.tmp`;
  try {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(tmp, `${token}\n`, { mode: 0o600, flag: 'wx' });
    if (options.rotate) {
      await rename(tmp, file);
      return { token, created: true, tightened: false };
    }
    try {
      await link(tmp, file);
      return { token, created: true, tightened: false };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  } catch (error) {
    throw webError('ORYX_E_WEB_TOKEN_FILE', `Cannot write the token file ${file}: ${(error as Error).message}`, { cause: error });
  } finally {
    await unlink(tmp).catch(() => {});
  }
  // Another server created the file between our read and our link: use its token.
  const theirs = await readToken(file);
  if (theirs === undefined) throw webError('ORYX_E_WEB_TOKEN_FILE', `The token file ${file} vanished while it was being created`);
  return { token: theirs, created: false, tightened: false };
}

async function readToken(file: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw webError('ORYX_E_WEB_TOKEN_FILE', `Cannot read the token file ${file}: ${(error as Error).message}`, { cause: error });
  }
  const token = text.trim();
  if (token.length < MIN_TOKEN || /\s/.test(token)) {
    throw webError('ORYX_E_WEB_TOKEN_FILE', `The token file ${file} does not hold a token (one line of at least ${MIN_TOKEN} characters, no spaces)`);
  }
  return token;
}

async function tighten(file: string): Promise<boolean> {
  if (process.platform === 'win32') return false;
  const { mode } = await stat(file);
  if ((mode & 0o077) === 0) return false;
  await chmod(file, 0o600);
  return true;
}
