import { constants } from 'node:fs';
import { access, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { absolute } from './fs-paths.ts';

/**
 * The executable a command names, resolved the way the sandbox resolves it: a bare name on
 * PATH (absolute entries only), a path relative to `base`; the folder `realpath`'d, the
 * file name kept (multi-call binaries act on the name they are started by). The shell tool
 * runs exactly this path, so what the sandbox checked is what runs.
 */
export async function resolveExecutable(command: string, base: string, envPath = process.env.PATH ?? ''): Promise<string | undefined> {
  if (!command || command.includes('\0')) return undefined;
  if (command.includes('/') || command.includes(path.sep)) return executableAt(absolute(command, base));
  for (const dir of envPath.split(path.delimiter)) {
    if (!dir || !path.isAbsolute(dir)) continue;
    const found = await executableAt(path.join(dir, command));
    if (found) return found;
  }
  return undefined;
}

async function executableAt(file: string): Promise<string | undefined> {
  const name = path.basename(file);
  if (!name || name === '.' || name === '..') return undefined;
  try {
    if (!(await stat(file)).isFile()) return undefined;
    await access(file, constants.X_OK);
    return path.join(await realpath(path.dirname(file)), name);
  } catch {
    return undefined;
  }
}

/** True when the command is a path (has a slash) rather than a name to look up. */
export const isPathLike = (command: string) => command.includes('/') || command.includes(path.sep);
