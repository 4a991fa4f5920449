import { Args } from '@oclif/core';
import { OryxCommand, table, listJson, type ListJson } from '@oryxos/command-kit';
import { quietMcpLogger } from '../../cli-logger.ts';
import type { McpToolInfo } from '../../server.ts';

export default class McpTools extends OryxCommand {
  static override readOnly = true;
  static override summary = 'List the tools of one MCP server, with the names agents use.';
  static override description = 'Starts the server if needed. Agents see each tool as <server>__<tool>, described with the server\'s '
    + 'title and hints (read-only, destructive…); the server\'s tools: allow-list in mcp_servers.yaml hides the others. '
    + '--json includes each input schema and the annotations as the server sent them.';
  static override examples = ['<%= config.bin %> mcp tools filesystem', '<%= config.bin %> mcp tools filesystem --json'];
  static override enableJsonFlag = true;
  static override args = {
    name: Args.string({ description: 'The server name (see `oryx mcp list`).', required: true }),
  };

  async run(): Promise<ListJson<McpToolInfo> & { server: string }> {
    const { args } = await this.parse(McpTools);
    const { kernel } = await this.boot({ logger: quietMcpLogger((l) => this.logToStderr(l)) });
    const tools = await kernel.service('mcp').tools(args.name);
    if (!this.jsonEnabled()) {
      this.log(tools.length
        ? table(tools.map((t) => ({ tool: t.name, 'agent name': t.exposed, description: t.description.replace(/\n/g, ' ') })), ['tool', 'agent name', 'description'])
        : `MCP server "${args.name}" offers no tools.`);
    }
    return listJson(tools, undefined, { server: args.name });
  }
}
