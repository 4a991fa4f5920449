import { existsSync } from 'node:fs';
import path from 'node:path';
import { format } from 'node:util';
import { Command, Flags, ux, type Interfaces } from '@oclif/core';
import { Kernel, resolveConfig, type Runs, type Logger, type Plugin, type ResolvedConfig } from '@oryxos/kernel';
import { OryxError, errorMessage, isOryxError } from '@oryxos/provider-spec';
import { didYouMean, escapeControls } from '@oryxos/plugin-kit';
import { loadConfig } from './config-file.ts';
import { loadDotEnv } from './dot-env.ts';
import { pluginSources, versions } from './installation.ts';

/**
 * Plugins used when there is no oryx.config.ts at all, so the CLI still works on the
 * embedded default database. Loaded by package name, only if installed: the CLI imports no
 * plugin statically.
 */
export const DEFAULT_PLUGIN_PACKAGES = ['@oryxos/plugin-sqlite', '@oryxos/plugin-audit', '@oryxos/plugin-approvals'];

export type BaseFlags<T extends typeof Command> = Interfaces.InferredFlags<(typeof OryxCommand)['baseFlags'] & T['flags']>;

/**
 * Base of every `oryx` command, whichever package it comes from: `--config`, booting the kernel
 * from the config, closing it afterwards, and errors printed as code, message and hint.
 * Everything a command prints goes through {@link forPeople}: the kernel's secrets masked,
 * control characters made visible (`--json` escapes them too), whoever wrote the text.
 * A command that only reads sets `static readOnly = true`: its kernel tells plugins to create
 * no file, so a read never leaves a database behind.
 *
 * @example
 * export default class Hello extends OryxCommand {
 *   static summary = 'Say hello';
 *   static readOnly = true;
 *   async run() { const { kernel } = await this.boot(); this.log(kernel.version); }
 * }
 */
export abstract class OryxCommand extends Command {
  static override baseFlags = {
    config: Flags.string({ char: 'c', summary: 'Path to oryx.config.ts (default: searched from the working directory up).', env: 'ORYX_CONFIG', helpGroup: 'GLOBAL' }),
  };

  /** True for a command that only reads: plugins create no file (no database, no log). */
  static readOnly = false;

  /** True for a command that serves requests (`oryx web`): only then do serving plugins set up (`ctx.serving`). */
  static serving = false;

  private kernel?: Kernel;
  /** Values read from the project's `.env` files: registered as secrets of the kernel. */
  private dotEnvValues: string[] = [];

  /**
   * Loads the config (or the defaults without one; `options.config` when the command loaded it
   * already) and starts a kernel on it, read-only when the command is ({@link OryxCommand.readOnly})
   * or `options.readOnly` says so.
   */
  protected async boot(options: { logger?: Logger; readOnly?: boolean; config?: ResolvedConfig; plugins?: Plugin[] } = {}): Promise<{ kernel: Kernel; service: Kernel['runs']; config: ResolvedConfig }> {
    const found = options.config ?? (await this.loadConfig());
    const loaded = found ?? resolveConfig({ plugins: await defaultPlugins() }, process.cwd());
    // What the command itself brings (the terminal's door) goes with the config's plugins.
    const config = options.plugins?.length ? { ...loaded, plugins: [...loaded.plugins, ...options.plugins] } : loaded;
    const logger: Logger = options.logger ?? {
      debug: () => {},
      info: () => {},
      warn: (m) => this.logToStderr(`warning: ${escapeControls(m, { oneLine: true })}`),
    };
    const command = this.constructor as typeof OryxCommand;
    // No config and no workspace folder: this folder is no OryxOS project, so the defaults create
    // no file in it (`oryx run` in the wrong folder fails on its missing agent without leaving a
    // database there). A project with `.oryxos/` but no config still runs on the defaults.
    const noProject = !found && !existsSync(loaded.workspaceDir);
    const readOnly = options.readOnly ?? (command.readOnly || noProject);
    // The package versions (a package.json read per package) only when a plugin asks for them (`/api/info`).
    const cli = this.config;
    let packages: Record<string, string> | undefined;
    const host = { name: cli.name, version: cli.version, get packages() { return (packages ??= versions(cli).packages); } };
    this.kernel = new Kernel({ config, logger, readOnly, serving: command.serving && !readOnly, host });
    for (const value of this.dotEnvValues) this.kernel.secrets.add(value);
    await this.kernel.start();
    return { kernel: this.kernel, service: this.kernel.runs, config };
  }

  /** The config `--config` names, or the one found from the working folder up; undefined when there is none. */
  protected async loadConfig(): Promise<ResolvedConfig | undefined> {
    const { flags } = await this.parse(this.constructor as typeof OryxCommand);
    const { readOnly } = this.constructor as typeof OryxCommand;
    return loadConfig({
      file: (flags as { config?: string }).config, resolveFrom: pluginSources(this.config), readOnly,
      // The project's .env files, before the config runs (it may read process.env), never over the real environment.
      beforeImport: async (file) => { this.dotEnvValues.push(...(await loadDotEnv(path.dirname(file))).values); },
    });
  }

  /** Text for a terminal: registered secrets masked, control characters (but newline and tab) shown as escapes. */
  protected forPeople(text: string): string {
    return escapeControls(this.kernel?.secrets.mask(text) ?? text);
  }

  override log(message = '', ...args: unknown[]): void {
    super.log(this.forPeople(args.length ? format(message, ...args) : message));
  }

  override logToStderr(message = '', ...args: unknown[]): void {
    super.logToStderr(this.forPeople(args.length ? format(message, ...args) : message));
  }

  /** JSON as oclif prints it, with secrets masked and the controls JSON leaves raw (DEL, C1, bidi) escaped. */
  override logJson(json: unknown): void {
    const mask = (_key: string, value: unknown) => (typeof value === 'string' && this.kernel ? this.kernel.secrets.mask(value) : value);
    ux.stdout(JSON.stringify(json, mask, 2).replace(/[\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
  }

  protected override async finally(error: Error | undefined): Promise<void> {
    await this.kernel?.close().catch((e) => this.logToStderr(`warning: close failed: ${errorMessage(e)}`));
    await super.finally(error);
  }

  protected override async catch(error: Error & { exitCode?: number; oclif?: unknown }): Promise<unknown> {
    // What oclif could not parse (a bad flag value, an unknown flag) exits 2: in the same format as every other error.
    if (!isOryxError(error) && (error.oclif as { exit?: number } | undefined)?.exit === 2 && (error as { code?: string }).code !== 'EEXIT') {
      error = usageError(error, `${this.config.bin} ${this.id ?? ''}`.trim(), [...flagNames({ ...this.ctor.baseFlags, ...this.ctor.flags }), ...(this.ctor.enableJsonFlag ? ['--json'] : [])]);
    }
    if (!isOryxError(error)) {
      if (error.oclif || (error as { code?: string }).code === 'EEXIT') throw error;
      error = new OryxError('ORYX_E_CLI_FAILED', errorMessage(error), { cause: error, hint: 'This is unexpected; please report it with the command you ran.' });
    }
    const e = error as OryxError;
    if (this.jsonEnabled()) {
      this.logJson({ error: e.toJSON() });
    } else {
      this.logToStderr(`error ${e.code}: ${e.message}`);
      if (e.hint) this.logToStderr(`  hint: ${e.hint}`);
    }
    this.exit(e.code === 'ORYX_E_CLI_USAGE' ? 2 : 1);
  }
}

/**
 * oclif's parse error in the error format every other failure uses (code, message, hint) and
 * with the usage exit status: `error ORYX_E_CLI_USAGE: Expected --approval=maybe to be one of: ask, deny, wait`.
 */
function usageError(error: Error, command: string, flags: string[]): OryxError {
  let message = error.message.split('\n').map((l) => l.trim()).filter((l) => l && !/^See more help with/.test(l)).join(': ');
  // An unknown flag (oclif's NonExistentFlagsError carries them as typed): each with the flag it is likely a typo of.
  const unknown = (error as { flags?: unknown }).flags;
  if (Array.isArray(unknown) && unknown.length && unknown.every((f) => typeof f === 'string')) {
    message = `Nonexistent flag${unknown.length === 1 ? '' : 's'}: ${unknown.map((f: string) => `${f}${didYouMean(f.replace(/=.*$/s, ''), flags)}`).join(', ')}`;
  }
  return new OryxError('ORYX_E_CLI_USAGE', message || 'The command line could not be read', { cause: error, hint: `See \`${command} --help\` for its flags and arguments.` });
}

/** A command's flags as they are typed: `--name` and `--alias` for each (one-letter `-c` flags are not suggested). */
function flagNames(flags: Record<string, { aliases?: string[] }> | undefined): string[] {
  return Object.entries(flags ?? {}).flatMap(([name, flag]) => [name, ...(flag.aliases ?? [])].map((n) => `--${n}`));
}

/** The default plugins that are installed, each created with its default options. */
export async function defaultPlugins(): Promise<Plugin[]> {
  const plugins: Plugin[] = [];
  for (const name of DEFAULT_PLUGIN_PACKAGES) {
    try {
      const mod = await import(name);
      plugins.push(mod.default());
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    }
  }
  return plugins;
}

/** Reads all of standard input. */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
