import { OryxCommand, table, listJson, type ListJson } from '@oryxos/plugin-cli/command';
import { quietMcpLogger } from '../../cli-logger.ts';
import type { McpServerStatus } from '../../server.ts';

export default class McpList extends OryxCommand {
  static override readOnly = true;
  static override summary = 'List the MCP servers with their status and tool count.';
  static override description = 'Starts every enabled server (in parallel, each within its connect timeout) to check it, '
    + 'then shows its transport, state, tool count and, for an unavailable one, why.';
  static override examples = ['<%= config.bin %> mcp list', '<%= config.bin %> mcp list --json'];
  static override enableJsonFlag = true;

  async run(): Promise<ListJson<McpServerStatus> & { file?: string }> {
    const { kernel } = await this.boot({ logger: quietMcpLogger((l) => this.logToStderr(l)) });
    const mcp = kernel.service('mcp');
    const servers = await mcp.connectAll();
    if (!this.jsonEnabled()) {
      if (servers.length === 0) {
        this.log(`No MCP servers declared. Add them under servers: in ${mcp.file ?? '.oryxos/mcp_servers.yaml'}.`);
      } else {
        this.log(table(servers.map((s) => ({ ...s, status: s.ok ? s.state : `${s.state} (unavailable)` })), ['name', 'transport', 'status', 'tools', 'target']));
        for (const s of servers.filter((x) => !x.ok)) this.log(`${s.name}: ${s.reason ?? 'unavailable'}`);
        for (const s of servers) for (const refused of s.refused ?? []) this.log(`${s.name}: ${refused}; the tool is left out`);
      }
    }
    return listJson(servers, undefined, mcp.file ? { file: mcp.file } : {});
  }
}
