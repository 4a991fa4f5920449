/**
 * The user's own folders for OryxOS, outside every project: the cache (the compiled configs) and
 * the state folder (the key that authenticates them). Nothing a project holds decides where they
 * are, so a tool or a confined program writing in a project cannot move them.
 */
import { homedir } from 'node:os';
import path from 'node:path';

/** Where {@link userDirs} puts OryxOS's files of this user. */
export interface UserDirs {
  /** `$XDG_CACHE_HOME/oryxos`, else `~/.cache/oryxos` (`%LOCALAPPDATA%\oryxos\cache` on Windows). */
  cache: string;
  /** `$XDG_STATE_HOME/oryxos`, else `~/.local/state/oryxos` (`%LOCALAPPDATA%\oryxos\state` on Windows). */
  state: string;
}

/**
 * This user's cache and state folders for OryxOS, from the XDG variables (a relative value is
 * ignored, as the XDG spec says) or the home folder.
 *
 * @example
 * userDirs({ HOME: '/home/me' }); // { cache: '/home/me/.cache/oryxos', state: '/home/me/.local/state/oryxos' }
 */
export function userDirs(env: NodeJS.ProcessEnv = process.env): UserDirs {
  const absolute = (value: string | undefined) => (value && path.isAbsolute(value) ? value : undefined);
  if (process.platform === 'win32' && absolute(env.LOCALAPPDATA)) {
    const base = path.join(env.LOCALAPPDATA!, 'oryxos');
    return { cache: absolute(env.XDG_CACHE_HOME) ? path.join(env.XDG_CACHE_HOME!, 'oryxos') : path.join(base, 'cache'), state: absolute(env.XDG_STATE_HOME) ? path.join(env.XDG_STATE_HOME!, 'oryxos') : path.join(base, 'state') };
  }
  const home = absolute(env.HOME) ?? homedir();
  return {
    cache: path.join(absolute(env.XDG_CACHE_HOME) ?? path.join(home, '.cache'), 'oryxos'),
    state: path.join(absolute(env.XDG_STATE_HOME) ?? path.join(home, '.local', 'state'), 'oryxos'),
  };
}
