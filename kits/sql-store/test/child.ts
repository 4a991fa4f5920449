import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const WORKER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'worker.mts');

/** A worker child process (fixtures/worker.mts) with helpers to wait for its lines. */
export class Worker {
  readonly child: ChildProcess;
  readonly lines: string[] = [];
  stderr = '';
  private readonly waiters: { match: (l: string) => boolean; resolve: (l: string) => void }[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  /**
   * `env` is added to this process's environment (ORYX_TEST_STORE_MODULE: the worker's engine);
   * `script` is another worker script than the store contract's.
   */
  constructor(args: string[], env: Record<string, string> = {}, script = WORKER) {
    this.child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { cwd: process.cwd(), env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let buffer = '';
    this.child.stdout!.on('data', (d) => {
      buffer += d;
      let nl: number;
      while ((nl = buffer.indexOf('\n')) !== -1) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        this.lines.push(line);
        for (const w of [...this.waiters]) if (w.match(line)) { this.waiters.splice(this.waiters.indexOf(w), 1); w.resolve(line); }
      }
    });
    this.child.stderr!.on('data', (d) => { this.stderr += d; });
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve({ code, signal })));
  }

  /** The first line (already seen or coming) that starts with `prefix`; rejects if the child exits first. */
  waitFor(prefix: string | ((line: string) => boolean)): Promise<string> {
    const match = typeof prefix === 'string' ? (l: string) => l.startsWith(prefix) : prefix;
    const seen = this.lines.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      this.waiters.push({ match, resolve });
      void this.exited.then((e) => reject(new Error(`worker exited (${e.code ?? e.signal}) before the line it waited for; stderr:\n${this.stderr}`)));
    });
  }

  async kill(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    await this.exited;
  }
}
