import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { DoctorCheck } from './doctor.ts';

/** Where `tsc` is: the project's own TypeScript first, then the installation's; undefined without one. */
function findTsc(root: string, installation: string): string | undefined {
  for (const from of [root, installation]) {
    try { return createRequire(path.join(from, 'package.json')).resolve('typescript/bin/tsc'); } catch { /* not there */ }
  }
  return undefined;
}

/**
 * Typechecks the config with the `tsconfig.json` beside it (the one `oryx init` writes resolves
 * `@oryxos/*` to the installation) when TypeScript is there: a hook reading a field that does
 * not exist (`call.arguments`) is a ✗ line naming the file, line and field. Skipped without a
 * tsconfig.json or a TypeScript to run.
 *
 * @example
 * await checkConfigTypes('/proj/oryx.config.ts', cli.root) // { check: 'config types', status: 'ok', … }
 */
export async function checkConfigTypes(configFile: string, installation: string, timeoutMs = 60_000): Promise<DoctorCheck> {
  const check = 'config types';
  const root = path.dirname(configFile);
  if (!existsSync(path.join(root, 'tsconfig.json'))) return { check, status: 'skip', detail: 'no tsconfig.json beside the config (oryx init writes one)' };
  const tsc = findTsc(root, installation);
  if (!tsc) return { check, status: 'skip', detail: 'TypeScript is not installed in the project or beside oryx' };
  const out = await new Promise<{ code: number; text: string }>((resolve) => {
    execFile(process.execPath, [tsc, '-p', root, '--noEmit', '--pretty', 'false'], { cwd: root, timeout: timeoutMs }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, text: `${stdout}${stderr}` });
    });
  });
  if (out.code === 0) return { check, status: 'ok', detail: `tsc -p ${path.basename(root)}: no type error` };
  const errors = out.text.split('\n').filter((l) => /error TS\d+/.test(l));
  return {
    check, status: 'fail', code: 'ORYX_E_CONFIG_TYPES',
    detail: `${errors.length || 'some'} type error(s): ${(errors.length ? errors.slice(0, 3) : [out.text.trim().slice(0, 300)]).join('; ')}${errors.length > 3 ? '; …' : ''}`,
    fix: 'Fix what the error names (a hook\'s arguments are typed: call.args, not call.arguments; the kernel README lists each hook), or run `npx tsc -p .` for every error.',
  };
}
