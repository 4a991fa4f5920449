import { OryxError } from '@oryxos/provider-spec';
import type { McpServerConfig } from './options.ts';

const REFERENCE = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** Variables that describe the machine, not credentials: their values are not treated as secrets. */
const PUBLIC_VARIABLES = /^(HOME|USER|LOGNAME|PWD|OLDPWD|PATH|SHELL|TERM|TMPDIR|TMP|TEMP|LANG|LANGUAGE|LC_[A-Z_]+|TZ|HOSTNAME|HOST|PORT|NODE_ENV|XDG_[A-Z_]+)$/;

/** Names of `env` and `headers` entries whose values are credentials whatever their origin. */
const SECRET_NAME = /key|token|secret|passw|pwd|auth|cookie|credential|session/i;

/**
 * The values of a server entry that are secrets: every `${VAR}` value taken from the
 * environment (not a default, not a variable that only describes the machine), and the
 * values of `env` and `headers` entries named like credentials.
 */
export function secretValues(server: McpServerConfig, fromEnv: [name: string, value: string][]): string[] {
  const named = [...Object.entries(server.env ?? {}), ...Object.entries(server.headers ?? {})].filter(([k]) => SECRET_NAME.test(k));
  return [...fromEnv.filter(([name]) => !PUBLIC_VARIABLES.test(name)), ...named].map(([, value]) => value);
}

/**
 * Replaces `${VAR}` with the environment variable VAR, `${VAR:-default}` with a default
 * when VAR is unset or empty, and `$$` with a literal `$`. A variable that is unset and has
 * no default is an ORYX_E_MCP_ENV_MISSING error naming it, the server and the field.
 *
 * @example
 * expandString('Bearer ${TOKEN}', { TOKEN: 'abc' }, { server: 'remote', field: 'headers.Authorization', file: 'mcp_servers.yaml' });
 * // 'Bearer abc'
 */
export function expandString(
  value: string,
  env: NodeJS.ProcessEnv,
  where: { server: string; field: string; file: string },
  used?: [name: string, value: string][],
): string {
  return value.replace(REFERENCE, (match, name: string | undefined, fallback: string | undefined) => {
    if (match === '$$') return '$';
    const found = env[name!];
    if (found) used?.push([name!, found]);
    if (fallback !== undefined) return found ? found : fallback;
    if (found === undefined) {
      throw new OryxError('ORYX_E_MCP_ENV_MISSING',
        `${where.file}: server "${where.server}" uses \${${name}} in ${where.field}, but the environment variable ${name} is not set`, {
          hint: `Set ${name} in the environment before starting OryxOS, or write \${${name}:-default} in ${where.file}.`,
          data: { variable: name, server: where.server, field: where.field },
        });
    }
    return found;
  });
}

/**
 * Expands every string of a server entry (command, args, env, cwd, url, headers); `used`
 * collects the variables read from the environment, with their values.
 */
export function expandServer(name: string, server: McpServerConfig, env: NodeJS.ProcessEnv, file: string, used?: [string, string][]): McpServerConfig {
  const one = (value: string, field: string) => expandString(value, env, { server: name, field, file }, used);
  const map = (record: Record<string, string> | undefined, field: string) => record === undefined
    ? undefined
    : Object.fromEntries(Object.entries(record).map(([k, v]) => [k, one(v, `${field}.${k}`)]));
  return {
    ...server,
    ...(server.command !== undefined ? { command: one(server.command, 'command') } : {}),
    ...(server.args !== undefined ? { args: server.args.map((a, i) => one(a, `args[${i}]`)) } : {}),
    ...(server.env !== undefined ? { env: map(server.env, 'env') } : {}),
    ...(server.cwd !== undefined ? { cwd: one(server.cwd, 'cwd') } : {}),
    ...(server.url !== undefined ? { url: one(server.url, 'url') } : {}),
    ...(server.headers !== undefined ? { headers: map(server.headers, 'headers') } : {}),
  };
}
