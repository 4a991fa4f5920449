import { OryxError } from '@oryxos/provider-spec';
import type { McpServerConfig } from './options.ts';

/**
 * `$$`, `${VAR}`, `${VAR:-default}` (OryxOS, Claude Code), `${env:VAR}` (VS Code, Cursor),
 * `${workspaceFolder}` and `${userHome}` (VS Code), `${input:id}` (VS Code, refused).
 */
const REFERENCE = /\$\$|\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}|\$\{input:([^}]*)\}/g;

/** Variables that describe the machine, not credentials: their values are not treated as secrets. */
const PUBLIC_VARIABLES = /^(HOME|USER|LOGNAME|PWD|OLDPWD|PATH|SHELL|TERM|TMPDIR|TMP|TEMP|LANG|LANGUAGE|LC_[A-Z_]+|TZ|HOSTNAME|HOST|PORT|NODE_ENV|XDG_[A-Z_]+)$/;

/** Names of `env` and `headers` entries whose values are credentials whatever their origin. */
const SECRET_NAME = /key|token|secret|passw|pwd|auth|cookie|credential|session/i;

/** Where a string came from, for messages. */
export interface Where { server: string; field: string; file: string }

/** What `${workspaceFolder}` and `${userHome}` stand for. */
export interface Folders { workspaceFolder: string; userHome: string }

/**
 * The values of a server entry that are secrets: every `${VAR}` value taken from the
 * environment (not a default, not a variable that only describes the machine), the values of
 * `env` and `headers` entries named like credentials, and the OAuth client secret and key.
 */
export function secretValues(server: McpServerConfig, fromEnv: [name: string, value: string][]): string[] {
  const named = [...Object.entries(server.env ?? {}), ...Object.entries(server.headers ?? {})].filter(([k]) => SECRET_NAME.test(k));
  const oauth = server.oauth ? [server.oauth.clientSecret, server.oauth.privateKey, server.oauth.idp?.idToken, server.oauth.idp?.clientSecret].filter((v): v is string => !!v) : [];
  return [...fromEnv.filter(([name]) => !PUBLIC_VARIABLES.test(name)), ...named].map(([, value]) => value).concat(oauth);
}

/**
 * Replaces `${VAR}` (or `${env:VAR}`) with the environment variable VAR, `${VAR:-default}`
 * with a default when VAR is unset or empty, `$$` with a literal `$`, and `${workspaceFolder}`
 * / `${userHome}` with those folders when `folders` is given. A variable that is unset and
 * has no default is an ORYX_E_MCP_ENV_MISSING error naming it, the server and the field; a
 * VS Code `${input:id}` is ORYX_E_MCP_INPUT_UNSUPPORTED (OryxOS does not prompt at start).
 *
 * @example
 * expandString('Bearer ${TOKEN}', { TOKEN: 'abc' }, { server: 'remote', field: 'headers.Authorization', file: 'mcp_servers.yaml' });
 * // 'Bearer abc'
 */
export function expandString(
  value: string,
  env: NodeJS.ProcessEnv,
  where: Where,
  used?: [name: string, value: string][],
  folders?: Folders,
): string {
  return value.replace(REFERENCE, (match, name: string | undefined, fallback: string | undefined, input: string | undefined) => {
    if (match === '$$') return '$';
    if (input !== undefined) {
      throw new OryxError('ORYX_E_MCP_INPUT_UNSUPPORTED',
        `${where.file}: server "${where.server}" uses \${input:${input}} in ${where.field}, a VS Code prompt OryxOS cannot show when it starts a server`, {
          hint: `Write \${${envName(input)}} there instead (in .oryxos/mcp_servers.yaml, or run oryx mcp import ${where.file}) and set ${envName(input)} in the environment.`,
          data: { input, server: where.server, field: where.field },
        });
    }
    if (folders && !match.startsWith('${env:') && (name === 'workspaceFolder' || name === 'userHome')) return folders[name];
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

/** A VS Code input id as an environment variable name: `api-key` → `API_KEY`. */
export function envName(input: string): string {
  return input.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '').toUpperCase() || 'VALUE';
}

/**
 * Expands every string of a server entry (command, args, env, cwd, url, headers, the OAuth
 * fields); `used` collects the variables read from the environment, with their values.
 */
export function expandServer(name: string, server: McpServerConfig, env: NodeJS.ProcessEnv, file: string, used?: [string, string][], folders?: Folders): McpServerConfig {
  const one = (value: string, field: string) => expandString(value, env, { server: name, field, file }, used, folders);
  const map = (record: Record<string, string> | undefined, field: string) => record === undefined
    ? undefined
    : Object.fromEntries(Object.entries(record).map(([k, v]) => [k, one(v, `${field}.${k}`)]));
  const oauth = server.oauth;
  return {
    ...server,
    ...(server.command !== undefined ? { command: one(server.command, 'command') } : {}),
    ...(server.args !== undefined ? { args: server.args.map((a, i) => one(a, `args[${i}]`)) } : {}),
    ...(server.env !== undefined ? { env: map(server.env, 'env') } : {}),
    ...(server.envFile !== undefined ? { envFile: one(server.envFile, 'envFile') } : {}),
    ...(server.cwd !== undefined ? { cwd: one(server.cwd, 'cwd') } : {}),
    ...(server.url !== undefined ? { url: one(server.url, 'url') } : {}),
    ...(server.headers !== undefined ? { headers: map(server.headers, 'headers') } : {}),
    ...(oauth ? {
      oauth: {
        ...oauth,
        ...(oauth.clientId !== undefined ? { clientId: one(oauth.clientId, 'oauth.clientId') } : {}),
        ...(oauth.clientSecret !== undefined ? { clientSecret: one(oauth.clientSecret, 'oauth.clientSecret') } : {}),
        ...(oauth.privateKey !== undefined ? { privateKey: one(oauth.privateKey, 'oauth.privateKey') } : {}),
        ...(oauth.clientMetadataUrl !== undefined ? { clientMetadataUrl: one(oauth.clientMetadataUrl, 'oauth.clientMetadataUrl') } : {}),
        ...(oauth.idp ? {
          idp: {
            tokenEndpoint: one(oauth.idp.tokenEndpoint, 'oauth.idp.tokenEndpoint'),
            clientId: one(oauth.idp.clientId, 'oauth.idp.clientId'),
            idToken: one(oauth.idp.idToken, 'oauth.idp.idToken'),
            ...(oauth.idp.clientSecret !== undefined ? { clientSecret: one(oauth.idp.clientSecret, 'oauth.idp.clientSecret') } : {}),
          },
        } : {}),
      },
    } : {}),
  };
}

/**
 * The variables of an env file (VS Code's `envFile`): `KEY=value` lines, `export KEY=value`,
 * `#` comments, values in single or double quotes.
 *
 * @example
 * parseEnvFile('# db\nexport PGHOST=localhost\nTOKEN="a b"\n'); // { PGHOST: 'localhost', TOKEN: 'a b' }
 */
export function parseEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!m) continue;
    let value = m[2]!;
    const quote = value[0];
    if ((quote === '"' || quote === "'") && value.endsWith(quote) && value.length > 1) {
      value = value.slice(1, -1);
      if (quote === '"') value = value.replace(/\\n/g, '\n').replace(/\\"/g, '"');
    } else {
      value = value.replace(/\s+#.*$/, '');
    }
    out[m[1]!] = value;
  }
  return out;
}
