import { OryxError } from '@oryxos/kernel';
import type { McpServerConfig } from './options.ts';

const REFERENCE = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

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
): string {
  return value.replace(REFERENCE, (match, name: string | undefined, fallback: string | undefined) => {
    if (match === '$$') return '$';
    const found = env[name!];
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

/** Expands every string of a server entry (command, args, env, cwd, url, headers). */
export function expandServer(name: string, server: McpServerConfig, env: NodeJS.ProcessEnv, file: string): McpServerConfig {
  const one = (value: string, field: string) => expandString(value, env, { server: name, field, file });
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
