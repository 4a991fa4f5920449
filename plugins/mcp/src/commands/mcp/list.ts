import { OryxCommand, table, listJson, type ListJson } from '@oryxos/command-kit';
import { quietMcpLogger } from '../../cli-logger.ts';
import { shownPath } from '../../config-file.ts';
import type { McpServerStatus } from '../../server.ts';

export default class McpList extends OryxCommand {
  static override readOnly = true;
  static override summary = 'List the MCP servers with their status and tool count.';
  static override description = 'Starts every enabled server (in parallel, each within its connect timeout) to check it, '
    + 'then shows its transport, state, tool count and, for an unavailable one, why and how to fix it. '
    + 'Servers come from .oryxos/mcp_servers.yaml, the mcp() options and .mcp.json; a file that cannot be read is named, and the others are used.';
  static override examples = ['<%= config.bin %> mcp list', '<%= config.bin %> mcp list --json'];
  static override enableJsonFlag = true;

  async run(): Promise<ListJson<McpServerStatus> & { file?: string; problems: { file: string; code: string; message: string; hint?: string }[] }> {
    const { kernel } = await this.boot({ logger: quietMcpLogger((l) => this.logToStderr(l)) });
    const mcp = kernel.service('mcp');
    const servers = await mcp.connectAll();
    const problems = mcp.problems.map((p) => ({ file: p.file, code: p.error.code, message: p.error.message, ...(p.error.hint ? { hint: p.error.hint } : {}) }));
    if (!this.jsonEnabled()) {
      for (const p of problems) this.log(`${shownPath(p.file)} is left out: ${p.message}${p.hint ? `\n  hint: ${p.hint}` : ''}`);
      if (servers.length === 0) {
        this.log(`No MCP servers declared. Add one with oryx mcp add NAME -- COMMAND …, or under servers: in ${shownPath(mcp.serversFile ?? '.oryxos/mcp_servers.yaml')}.`);
      } else {
        const status = (s: McpServerStatus) => `${s.ok ? s.state : `${s.state} (unavailable)`}${s.auth === 'signed-in' ? ', signed in' : ''}`;
        this.log(table(servers.map((s) => ({ ...s, status: status(s) })), ['name', 'transport', 'status', 'tools', 'target']));
        for (const s of servers.filter((x) => !x.ok)) this.log(`${s.name}: ${s.reason ?? 'unavailable'}${s.hint ? `\n  hint: ${s.hint}` : ''}${s.log && s.state === 'failed' ? `\n  log: ${shownPath(s.log)}` : ''}`);
        for (const s of servers) for (const refused of s.refused ?? []) this.log(`${s.name}: ${refused}; the tool is left out`);
        for (const s of servers) if (s.warning) this.log(`${s.name}: ${s.warning}`);
      }
    }
    return listJson(servers, undefined, { ...(mcp.file ? { file: mcp.file } : {}), problems });
  }
}
