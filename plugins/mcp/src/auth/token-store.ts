import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

/** What OryxOS keeps for one remote server: how it registered, its tokens, what discovery found. */
export interface StoredAuth {
  /** The server URL the tokens are for (the key of the file). */
  url: string;
  /** The name it had when the tokens were stored, for people reading the folder. */
  server: string;
  /** The client as registered (dynamic registration or a metadata-document URL), kept as the SDK gave it. */
  client?: OAuthClientInformationMixed;
  /** The loopback port the registered redirect URI names. */
  callbackPort?: number;
  tokens?: OAuthTokens & { issuer?: string };
  /** When the tokens were obtained (ms since the epoch), to know when they expire. */
  obtainedAt?: number;
  discovery?: OAuthDiscoveryState;
  updatedAt?: string;
}

/**
 * The folder OAuth tokens live in when no `tokenDir` is given: the user's state folder, never
 * the project (which tools may read): `$XDG_STATE_HOME/oryxos/mcp-auth`, else
 * `~/.local/state/oryxos/mcp-auth`.
 *
 * @example
 * defaultTokenDir({ XDG_STATE_HOME: '/home/me/.state' }); // '/home/me/.state/oryxos/mcp-auth'
 */
export function defaultTokenDir(env: NodeJS.ProcessEnv = process.env): string {
  const state = env.XDG_STATE_HOME && path.isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : path.join(env.HOME ?? os.homedir(), '.local', 'state');
  return path.join(state, 'oryxos', 'mcp-auth');
}

/**
 * One JSON file per server URL, mode 0600 in a 0700 folder, written atomically (a temp file
 * renamed over the old one), so a token is never readable by other users nor half-written.
 *
 * @example
 * const store = new TokenStore(defaultTokenDir());
 * await store.update('https://mcp.example.com/mcp', 'example', (a) => ({ ...a, tokens }));
 */
export class TokenStore {
  constructor(readonly dir: string) {}

  /** The file of a server URL: a hash, so a URL never becomes a path. */
  fileOf(url: string): string {
    return path.join(this.dir, `${createHash('sha256').update(url).digest('hex').slice(0, 24)}.json`);
  }

  async read(url: string): Promise<StoredAuth | undefined> {
    let text: string;
    try {
      text = await readFile(this.fileOf(url), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    try {
      const data = JSON.parse(text) as StoredAuth;
      return data.url === url ? data : undefined;
    } catch {
      return undefined; // a damaged file is as good as none: the next login writes a new one
    }
  }

  /** Reads, changes and writes one server's record. */
  async update(url: string, server: string, change: (current: StoredAuth) => StoredAuth): Promise<StoredAuth> {
    const next = { ...change((await this.read(url)) ?? { url, server }), url, server, updatedAt: new Date().toISOString() };
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await chmod(this.dir, 0o700);
    const file = this.fileOf(url);
    const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(temp, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
    await rename(temp, file);
    return next;
  }

  async remove(url: string): Promise<boolean> {
    const file = this.fileOf(url);
    try {
      await readFile(file);
    } catch {
      return false;
    }
    await rm(file, { force: true });
    return true;
  }
}
