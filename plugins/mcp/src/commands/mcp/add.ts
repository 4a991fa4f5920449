import { Args, Flags } from '@oclif/core';
import { OryxError } from '@oryxos/provider-spec';
import { OryxCommand } from '@oryxos/command-kit';
import { quietMcpLogger } from '../../cli-logger.ts';
import { shownPath } from '../../config-file.ts';
import type { McpServerConfig } from '../../options.ts';

/** `KEY=value` pairs of repeated flags. */
function pairs(values: string[] | undefined, separator: RegExp, flag: string, example: string): Record<string, string> | undefined {
  if (!values?.length) return undefined;
  const out: Record<string, string> = {};
  for (const v of values) {
    const m = separator.exec(v);
    if (!m || m.index === 0) throw new OryxError('ORYX_E_CLI_USAGE', `${flag} ${JSON.stringify(v)} is not of the form ${example}`, { hint: `Write ${flag} ${example}.` });
    out[v.slice(0, m.index).trim()] = v.slice(m.index + m[0].length).trim();
  }
  return out;
}

export default class McpAdd extends OryxCommand {
  static override summary = 'Add an MCP server to .oryxos/mcp_servers.yaml.';
  static override description = 'A program to start: oryx mcp add NAME -- COMMAND [ARGS…] (the -- keeps the server\'s own flags apart). '
    + 'A remote server: oryx mcp add NAME URL (Streamable HTTP; --transport sse for a legacy HTTP+SSE server). '
    + 'The file keeps its comments. Write secrets as ${VAR} (in single quotes) so they stay in the environment, not in the file.';
  static override examples = [
    '<%= config.bin %> mcp add filesystem -- npx -y @modelcontextprotocol/server-filesystem .',
    "<%= config.bin %> mcp add github -e 'GITHUB_TOKEN=${GITHUB_TOKEN}' -- npx -y @modelcontextprotocol/server-github",
    '<%= config.bin %> mcp add notion https://mcp.notion.com/mcp',
    "<%= config.bin %> mcp add api https://api.example.com/mcp -H 'Authorization: Bearer ${API_TOKEN}'",
    '<%= config.bin %> mcp add asana --transport sse https://mcp.asana.com/sse',
  ];
  static override strict = false;
  static override enableJsonFlag = true;
  static override args = {
    name: Args.string({ description: 'The server name (letters, digits, - and single _); it prefixes its tools: NAME__tool.', required: true }),
    target: Args.string({ description: 'A URL, or (after --) the command to start and its arguments.' }),
  };
  static override flags = {
    transport: Flags.string({ summary: 'stdio (a command), http (Streamable HTTP) or sse (legacy HTTP+SSE). Default: from what follows the name.', options: ['stdio', 'http', 'sse'] }),
    env: Flags.string({ char: 'e', summary: 'An environment variable of a stdio server, KEY=value (repeatable).', multiple: true }),
    header: Flags.string({ char: 'H', summary: 'A header of a remote server, "Name: value" (repeatable).', multiple: true }),
    cwd: Flags.string({ summary: 'The working folder of a stdio server, relative to the project.' }),
    tools: Flags.string({ summary: 'Only these of its tools, comma-separated (* globs).' }),
    'client-id': Flags.string({ summary: 'OAuth: a client registered beforehand with the server\'s authorization server.' }),
    'client-secret': Flags.string({ summary: 'OAuth: its secret (write ${VAR}).' }),
    scope: Flags.string({ summary: 'OAuth: a scope to ask for (repeatable).', multiple: true }),
    'callback-port': Flags.integer({ summary: 'OAuth: the fixed loopback port of the redirect URI registered for the client.', min: 1, max: 65_535 }),
    force: Flags.boolean({ summary: 'Replace a server of the same name.' }),
  };

  async run(): Promise<{ name: string; file: string; server: McpServerConfig; replaced: boolean }> {
    const { args, argv, flags } = await this.parse(McpAdd);
    const rest = (argv as string[]).slice(1);
    const url = rest.length === 1 && /^https?:\/\//.test(rest[0]!) ? rest[0]! : undefined;
    const transport = flags.transport ?? (url ? 'http' : 'stdio');
    if (!rest.length) {
      throw new OryxError('ORYX_E_CLI_USAGE', `oryx mcp add ${args.name}: nothing to start or reach`, {
        hint: `Give a command after -- (oryx mcp add ${args.name} -- npx -y PACKAGE) or a URL (oryx mcp add ${args.name} https://…/mcp).`,
      });
    }
    if (transport !== 'stdio' && !url) {
      throw new OryxError('ORYX_E_CLI_USAGE', `--transport ${transport} needs one http:// or https:// URL after the name`, { hint: `oryx mcp add ${args.name} --transport ${transport} https://…` });
    }
    if (transport === 'stdio' && url) {
      throw new OryxError('ORYX_E_CLI_USAGE', `--transport stdio starts a program, and ${url} is a URL`, { hint: 'Drop --transport stdio to reach the URL, or give the command after --.' });
    }
    const env = pairs(flags.env, /=/, '--env', 'KEY=value');
    const headers = pairs(flags.header, /:\s*/, '--header', '"Name: value"');
    const oauth = flags['client-id'] || flags.scope || flags['callback-port']
      ? {
        ...(flags['client-id'] ? { clientId: flags['client-id'] } : {}),
        ...(flags['client-secret'] ? { clientSecret: flags['client-secret'] } : {}),
        ...(flags.scope ? { scopes: flags.scope } : {}),
        ...(flags['callback-port'] ? { callbackPort: flags['callback-port'] } : {}),
      }
      : undefined;
    const server: McpServerConfig = url
      ? { ...(transport === 'sse' ? { type: 'sse' as const } : {}), url, ...(headers ? { headers } : {}), ...(oauth ? { oauth } : {}) }
      : { command: rest[0]!, ...(rest.length > 1 ? { args: rest.slice(1) } : {}), ...(env ? { env } : {}), ...(flags.cwd ? { cwd: flags.cwd } : {}) };
    if (flags.tools) server.tools = flags.tools.split(',').map((t) => t.trim()).filter(Boolean);
    const { kernel } = await this.boot({ logger: quietMcpLogger((l) => this.logToStderr(l)) });
    const file = kernel.service('mcp').serversFile!;
    const { addServer } = await import('../../config-writer.ts');
    const { replaced } = await addServer(file, args.name, server, { force: flags.force });
    if (!this.jsonEnabled()) {
      this.log(`${replaced ? 'Replaced' : 'Added'} MCP server "${args.name}" in ${shownPath(file)}.`);
      const literal = [...Object.entries(env ?? {}), ...Object.entries(headers ?? {})].filter(([k, v]) => /key|token|secret|passw|auth/i.test(k) && !v.includes('${'));
      if (literal.length) this.log(`note: ${literal.map(([k]) => k).join(', ')} is written as given; write '\${VAR}' to keep the secret in the environment instead.`);
      this.log(server.url ? `Check it with oryx mcp list; if it asks for authorization, run oryx mcp login ${args.name}.` : `Allow its program in sandbox({ exec: { allow: ['${server.command}'] } }), then check it with oryx mcp list.`);
    }
    return { name: args.name, file, server, replaced };
  }
}
