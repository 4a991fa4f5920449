// `oryx web` in a child process, for the end-to-end tests (build first: `npx tsc -b plugins/web
// && node scripts/manifest.mjs`; `npm test` does it). These tests signal the server and read its
// output while it runs, so they spawn it here rather than through runOryx (which waits for the end).
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

const bin = path.resolve(import.meta.dirname, '../../../bin/run.js');

/** A running `oryx web`. */
export interface CliServer {
  child: ChildProcess;
  url: string;
  /** The generated token, read from the token file it named (undefined for a configured token or auth: 'none'). */
  token?: string;
  stdout(): string;
  stderr(): string;
  exit: Promise<number | null>;
}

/** Spawns `oryx web …args` in `dir` (`node` takes `nodeArgs` first: `--import` a preload). */
export function startCli(dir: string, args: string[], env: Record<string, string> = {}, nodeArgs: string[] = []): CliServer {
  const child = spawn(process.execPath, [...nodeArgs, bin, 'web', ...args], { cwd: dir, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '', err = '';
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { err += d; });
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, url: '', stdout: () => out, stderr: () => err, exit };
}

/** Waits until the server prints `pattern` (30 s at most, or until it exits). */
export async function waitFor(s: CliServer, pattern: RegExp): Promise<RegExpMatchArray> {
  for (let i = 0; i < 1500; i++) {
    const m = s.stdout().match(pattern);
    if (m) return m;
    if (s.child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`never printed ${pattern}\nstdout: ${s.stdout()}\nstderr: ${s.stderr()}`);
}

/** Starts `oryx web --port 0 …args` and waits until it listens and has said how to authenticate. */
export async function listening(dir: string, args: string[] = [], env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<CliServer> {
  const s = startCli(dir, ['--port', '0', ...args], env, nodeArgs);
  s.url = (await waitFor(s, /listening on (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
  await waitFor(s, /^auth: .*$/m);
  // `oryx web` names the file that holds a generated token; it prints the token only with --show-token.
  const file = /^auth: bearer token kept in (\S+)$/m.exec(s.stdout())?.[1];
  s.token = file ? (await readFile(file, 'utf8')).trim() : undefined;
  return s;
}

/** Kills (SIGKILL) every server still running. */
export async function killAll(servers: CliServer[]): Promise<void> {
  for (const s of servers) if (s.child.exitCode === null) { s.child.kill('SIGKILL'); await s.exit; }
}
