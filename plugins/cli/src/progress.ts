import type { Logger, RunEvent, RunResult } from '@oryxos/kernel';
import { tokensText } from '@oryxos/command-kit';

/** How a command may decorate its output: decided once from the flags, the environment and stderr. */
export interface TerminalMode {
  /** A spinner, tool lines and a footer on stderr: stderr is a terminal, and neither --json nor --quiet. */
  progress: boolean;
  /** Colour in what this command prints itself: off with NO_COLOR, --no-color, TERM=dumb or off a terminal. */
  color: boolean;
}

/**
 * What a command may show: progress only on a terminal (stderr, where it goes) that is not
 * `TERM=dumb`, and never with `--json` or `--quiet`; colour only with progress, and never with
 * `NO_COLOR` (set and not empty, per no-color.org) or `--no-color`.
 *
 * @example
 * const mode = terminalMode({ json: this.jsonEnabled(), quiet: flags.quiet, color: flags.color });
 */
export function terminalMode(flags: { json: boolean; quiet?: boolean; color?: boolean }, env: NodeJS.ProcessEnv = process.env, stderr: { isTTY?: boolean } = process.stderr): TerminalMode {
  const progress = !!stderr.isTTY && env.TERM !== 'dumb' && !flags.json && !flags.quiet;
  return { progress, color: progress && flags.color !== false && !env.NO_COLOR };
}

/** Colours with a meaning, or none. */
export interface Paint { red(s: string): string; yellow(s: string): string; green(s: string): string; dim(s: string): string }

const plain: Paint = { red: (s) => s, yellow: (s) => s, green: (s) => s, dim: (s) => s };

/**
 * The colours of `mode` (picocolors, loaded only when colour is on).
 *
 * @example
 * const paint = await paintFor(mode); this.logToStderr(paint.dim(`session ${short}`));
 */
export async function paintFor(mode: TerminalMode): Promise<Paint> {
  if (!mode.color) return plain;
  const { default: pc } = await import('picocolors');
  const c = pc.createColors(true);
  return { red: c.red, yellow: c.yellow, green: c.green, dim: c.dim };
}

/** `{ path: 'README.md' }` → `README.md`; `{ command: 'ls', args: ['-la'] }` → `ls -la`: the values, one line, cut to `max`. */
export function argSummary(args: Record<string, unknown>, max = 60): string {
  const parts: string[] = [];
  for (const value of Object.values(args ?? {})) {
    if (value === undefined || value === null || value === '') continue;
    if (Array.isArray(value)) parts.push(value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(' '));
    else parts.push(typeof value === 'string' ? value : JSON.stringify(value));
  }
  const line = parts.join(' ').replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** `1234` → `1.2 s`; under a second in ms. */
export function duration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** Where progress writes, and how text from models and tools is made safe for a terminal. */
export interface ProgressOutput {
  /** Raw text on stderr (colour codes pass). */
  write(text: string): void;
  /** Secrets masked, control characters escaped: applied to every piece of foreign text. */
  clean(text: string): string;
}

interface Spinner { start(text?: string): Spinner; stop(): Spinner; text: string; readonly isSpinning: boolean }

/**
 * What `oryx run` and `oryx chat` show on a terminal while an agent works: a spinner with the
 * phase on stderr (`thinking…`, `read_file README.md…`), one line per tool call (name, a short
 * summary of its arguments, ok / error / denied, duration), and a dim footer (short session
 * id, iterations, tokens, time). The spinner is yocto-spinner, loaded only here; it clears its
 * line before anything else is written to the terminal.
 *
 * @example
 * const progress = await RunProgress.create(mode, { write: (t) => process.stderr.write(t), clean: (t) => this.forPeople(t) });
 * await service.process({ ..., onEvent: (e) => progress?.onEvent(e) });
 * progress?.finish(); progress?.footer(result, elapsedMs);
 */
export class RunProgress {
  private started = 0;
  private readonly paint: Paint;

  private constructor(private readonly spinner: Spinner, paint: Paint, private readonly out: ProgressOutput) {
    this.paint = paint;
  }

  /** A progress display, or undefined when `mode` shows none. */
  static async create(mode: TerminalMode, out: ProgressOutput): Promise<RunProgress | undefined> {
    if (!mode.progress) return undefined;
    // --no-color: the spinner's colour library reads NO_COLOR when it loads.
    if (!mode.color) process.env.NO_COLOR = '1';
    const { default: yoctoSpinner } = await import('yocto-spinner');
    const spinner = yoctoSpinner({ stream: process.stderr, handleSignals: false, color: 'cyan' }) as unknown as Spinner;
    return new RunProgress(spinner, await paintFor(mode), out);
  }

  /** Shows the phase the run is in; call with every RunEvent. */
  onEvent(e: RunEvent): void {
    switch (e.type) {
      case 'iteration': this.phase(e.iteration > 1 ? `thinking (step ${e.iteration})…` : 'thinking…'); break;
      // Streamed text goes to stdout: the spinner steps aside until the next phase.
      case 'token': if (this.spinner.isSpinning) this.spinner.stop(); break;
      case 'tool_call':
        this.started = performance.now();
        this.phase(`${e.call.name} ${argSummary(e.call.args)}…`.replace(' …', '…'));
        break;
      case 'tool_result': this.line(this.toolLine(e.call.name, e.call.args, e.result, performance.now() - this.started)); break;
      case 'retry': this.line(this.paint.yellow(`  ↻ ${this.out.clean(`model call failed (${e.error.code}), retry ${e.attempt} in ${duration(e.delayMs)}`)}`)); break;
      default: break;
    }
  }

  /** One line on stderr without breaking the spinner (warnings, notes). */
  line(text: string): void {
    this.out.write(`${text}\n`);
  }

  /** A warning line (the kernel's log), yellow. */
  warn(message: string): void {
    this.line(`${this.paint.yellow('warning:')} ${this.out.clean(message)}`);
  }

  /** An indented dim line under a tool line (what -v adds: the result). */
  detail(text: string): void {
    this.line(this.paint.dim(`    ${this.out.clean(text)}`));
  }

  /** Stops the spinner (before the answer is printed, or on an error). */
  finish(): void {
    if (this.spinner.isSpinning) this.spinner.stop();
  }

  /** The dim last line: short session id, iterations, tokens and time. */
  footer(result: RunResult, elapsedMs: number): void {
    this.finish();
    this.line(this.paint.dim(`session ${result.sessionId.slice(0, 8)} · ${result.iterations} iteration${result.iterations === 1 ? '' : 's'}`
      + ` · ${tokensText(result.usage)} · ${duration(elapsedMs)}`));
  }

  private phase(text: string): void {
    const clean = this.out.clean(text);
    if (this.spinner.isSpinning) this.spinner.text = clean;
    else this.spinner.start(clean);
  }

  private toolLine(name: string, args: Record<string, unknown>, result: { isError: boolean; denied?: string; content: string }, ms: number): string {
    return toolLine({ name, args, result, ms }, this.paint, this.out.clean);
  }
}

/**
 * One tool call in one line, as a terminal shows it and as `oryx run` writes it to stderr off
 * one: name, a short summary of its arguments, ok / error / denied, duration, and for a
 * failure the first 100 characters of why.
 *
 * @example
 * toolLine({ name: 'read_file', args: { path: 'a.md' }, result: { isError: false, content: '…' }, ms: 3 }, plain, (t) => t)
 * // '  ✓ read_file a.md ok 3 ms'
 */
export function toolLine(call: { name: string; args: Record<string, unknown>; result: { isError: boolean; denied?: string; content: string }; ms: number }, paint: Paint, clean: (text: string) => string): string {
  const { red, yellow, green, dim } = paint;
  const { result, ms } = call;
  const what = clean(`${call.name} ${argSummary(call.args)}`.trim());
  const first = (text: string) => clean(text.replace(/\s+/g, ' ').trim().slice(0, 100));
  if (result.denied !== undefined) return `  ${yellow('⊘')} ${what} ${yellow('denied')} ${dim(duration(ms))}: ${first(result.denied)}`;
  if (result.isError) return `  ${red('✗')} ${what} ${red('error')} ${dim(duration(ms))}: ${first(result.content)}`;
  return `  ${green('✓')} ${what} ${green('ok')} ${dim(duration(ms))}`;
}

/**
 * The kernel logger of a command that may show progress: warnings as yellow lines that keep
 * the spinner, else through `fallback` (the command's stderr).
 */
export function progressLogger(progress: RunProgress | undefined, fallback: (line: string) => void): Logger {
  return { debug() {}, info() {}, warn: (m) => (progress ? progress.warn(m) : fallback(`warning: ${m}`)) };
}
