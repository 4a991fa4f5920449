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
