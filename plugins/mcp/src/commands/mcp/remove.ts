import { Args } from '@oclif/core';
import { OryxError } from '@oryxos/provider-spec';
import { OryxCommand } from '@oryxos/command-kit';
import { quietMcpLogger } from '../../cli-logger.ts';
import { shownPath } from '../../config-file.ts';

export default class McpRemove extends OryxCommand {
  static override summary = 'Remove an MCP server from .oryxos/mcp_servers.yaml.';
  static override description = 'The file keeps its comments. A server declared in the mcp() options or in .mcp.json is not in this file: edit that one.';
  static override examples = ['<%= config.bin %> mcp remove filesystem'];
  static override enableJsonFlag = true;
  static override args = { name: Args.string({ description: 'The server name.', required: true }) };

  async run(): Promise<{ name: string; file: string; removed: true }> {
    const { args } = await this.parse(McpRemove);
    const { kernel } = await this.boot({ logger: quietMcpLogger((l) => this.logToStderr(l)) });
    const mcp = kernel.service('mcp');
    const file = mcp.serversFile!;
    const { removeServer } = await import('../../config-writer.ts');
    if (!(await removeServer(file, args.name))) {
      const elsewhere = mcp.names.includes(args.name) ? mcp.status().find((s) => s.name === args.name)!.source : undefined;
      throw new OryxError('ORYX_E_MCP_SERVER_UNKNOWN', `${shownPath(file)} declares no server "${args.name}"`, {
        hint: elsewhere ? `It is declared in ${shownPath(elsewhere)}: remove it there.` : `Declared servers: ${mcp.names.join(', ') || 'none'}.`,
      });
    }
    if (!this.jsonEnabled()) this.log(`Removed MCP server "${args.name}" from ${shownPath(file)}.`);
    return { name: args.name, file, removed: true };
  }
}
