import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { OryxError, errorMessage, isOryxError } from '@oryxos/provider-spec';
import { shape } from '@oryxos/schema-kit';
import { expandServer, secretValues } from './env.ts';
import { fileShape, firstProblem, serverProblem, urlProblem, type McpOptions, type McpServerConfig } from './options.ts';

/** A declared server, its `${VAR}` references expanded. */
export interface ServerEntry {
  name: string;
  config: McpServerConfig;
  /** Where it was declared. */
  origin: 'file' | 'options';
  /** Set when the entry cannot be used (a missing environment variable): the server is unavailable with this reason. */
  error?: OryxError;
}

export interface LoadedServers {
  servers: ServerEntry[];
  /** The servers file that was read (absolute), or undefined when there was none. */
  file?: string;
  /** Names declared in both places; the options entry won. */
  overridden: string[];
  /** Values to mask wherever OryxOS writes text: what `${VAR}` put in, credential-like `env` and `headers`. */
  secrets: string[];
}

/**
 * Reads the servers file (a missing default file means no servers) and merges the servers
 * from the plugin options over it: an options entry replaces a file entry of the same name
 * as a whole, so what the code says is what runs.
 *
 * @example
 * const { servers } = await loadServers({ options: {}, root: '/proj', workspaceDir: '/proj/.oryxos' });
 */
export async function loadServers(input: {
  options: McpOptions;
  root: string;
  workspaceDir: string;
  env?: NodeJS.ProcessEnv;
}): Promise<LoadedServers> {
  const env = input.env ?? process.env;
  const explicit = input.options.file !== undefined;
  const file = explicit ? path.resolve(input.root, input.options.file!) : path.join(input.workspaceDir, 'mcp_servers.yaml');
  const shown = path.relative(process.cwd(), file) || file;

  let text: string | undefined;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new OryxError('ORYX_E_MCP_CONFIG_INVALID', `${shown}: cannot be read: ${errorMessage(error)}`, {
        hint: 'Check the permissions of the file.', cause: error,
      });
    }
    if (explicit) {
      throw new OryxError('ORYX_E_MCP_CONFIG_INVALID', `${shown}: the servers file named by the mcp() option "file" does not exist`, {
        hint: 'Create the file (with a top-level servers: map), fix the path, or drop the option to use <workspace>/mcp_servers.yaml.',
      });
    }
  }

  const fromFile: ServerEntry[] = [];
  const secrets: string[] = [];
  if (text !== undefined) {
    let raw: unknown;
    try {
      raw = (await import('yaml')).parse(text);
    } catch (error) {
      throw new OryxError('ORYX_E_MCP_CONFIG_INVALID', `${shown}: not valid YAML: ${errorMessage(error)}`, {
        hint: 'Fix the YAML syntax at the line the message names.', cause: error,
      });
    }
    const found = shape.check(fileShape, raw ?? {});
    const fail = (field: string, problem: string): never => {
      throw new OryxError('ORYX_E_MCP_CONFIG_INVALID', `${shown}: ${field} ${problem}`, {
        hint: `Fix that field in ${shown}; every server needs command (stdio) or url (Streamable HTTP).`,
        data: { file, field },
      });
    };
    if (found) {
      const { field, problem } = firstProblem(found);
      fail(field, problem);
    }
    const servers = (((raw ?? {}) as { servers?: Record<string, McpServerConfig> | null }).servers) ?? {};
    for (const [name, server] of Object.entries(servers)) {
      const p = serverProblem(name, server);
      if (p) fail(p.field, p.problem);
      try {
        const used: [string, string][] = [];
        const config = expandServer(name, server, env, shown, used);
        secrets.push(...secretValues(config, used));
        const u = config.url !== undefined ? urlProblem(name, config.url) : undefined;
        if (u) fail(u.field, u.problem);
        fromFile.push({ name, config, origin: 'file' });
      } catch (error) {
        if (!isOryxError(error) || error.code !== 'ORYX_E_MCP_ENV_MISSING') throw error;
        fromFile.push({ name, config: server, origin: 'file', error });
      }
    }
  }

  const fromOptions = Object.entries(input.options.servers ?? {}).map(([name, config]): ServerEntry => ({ name, config, origin: 'options' }));
  for (const s of fromOptions) secrets.push(...secretValues(s.config, []));
  const optionNames = new Set(fromOptions.map((s) => s.name));
  const overridden = fromFile.filter((s) => optionNames.has(s.name)).map((s) => s.name);
  return {
    servers: [...fromFile.filter((s) => !optionNames.has(s.name)), ...fromOptions],
    file: text === undefined ? undefined : file,
    overridden,
    secrets,
  };
}
