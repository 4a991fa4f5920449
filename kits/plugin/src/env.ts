/**
 * Variables every child process gets from the environment of OryxOS (when set): what programs
 * need to run and print, nothing that carries a secret or changes what a program does. A
 * sandbox adds the ones its policy allows.
 */
export const MINIMAL_ENV = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TERM', 'TZ', 'TMPDIR', 'SYSTEMROOT', 'WINDIR', 'PATHEXT'] as const;

/**
 * The {@link MINIMAL_ENV} variables that are set in `from` (default: this process).
 *
 * @example
 * spawn(file, args, { env: { ...minimalEnv(), LANG: 'C' } });
 */
export function minimalEnv(from: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of MINIMAL_ENV) { const v = from[name]; if (v !== undefined) env[name] = v; }
  return env;
}

/**
 * A value read from an environment variable when a plugin needs it (a password, a URL with
 * credentials), so the config file never holds it: what {@link env} returns.
 */
export interface EnvRef {
  readonly env: string;
}

/**
 * Names the environment variable that holds a secret option. The plugin reads it with
 * {@link readEnv}, which registers the value as a secret: masked as `***` wherever OryxOS writes.
 *
 * @example
 * notify({ channels: [{ name: 'ops', host: 'smtp.example.com', port: 587, user: 'bot', pass: env('SMTP_PASS'), from: 'bot@example.com', to: ['me@example.com'] }] })
 */
export function env(name: string): EnvRef {
  return Object.freeze({ env: name, toJSON: () => `env(${name})`, toString: () => `env(${name})` });
}

/** True for what {@link env} returns. */
export function isEnvRef(value: unknown): value is EnvRef {
  return !!value && typeof value === 'object' && typeof (value as EnvRef).env === 'string';
}

/** Where {@link readEnv} registers what it reads: the kernel's secrets (`ctx.secrets`). */
export interface SecretSink {
  add(value: string | undefined): void;
}

/**
 * The value of the variable `ref` names (an {@link env} reference or a variable name), registered
 * with `secrets` first, so it is masked in the CLI's output, stored messages, tool results and the
 * audit trail wherever it turns up. Undefined when the variable is not set (or empty).
 *
 * @example
 * const pass = readEnv(channel.pass, ctx.secrets); // process.env.SMTP_PASS, now masked as ***
 */
export function readEnv(ref: EnvRef | string, secrets: SecretSink, from: NodeJS.ProcessEnv = process.env): string | undefined {
  const value = from[typeof ref === 'string' ? ref : ref.env];
  if (!value) return undefined;
  secrets.add(value);
  return value;
}
