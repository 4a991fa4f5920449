import path from 'node:path';
import { Args, Flags } from '@oclif/core';
import { OryxCommand } from '@oryxos/command-kit';
import { quietMcpLogger } from '../../cli-logger.ts';
import { shownPath } from '../../config-file.ts';
import type { Imported } from '../../config-writer.ts';

export default class McpImport extends OryxCommand {
  static override summary = 'Copy the servers of a Claude, VS Code or Cursor MCP file into .oryxos/mcp_servers.yaml.';
  static override description = 'Reads claude_desktop_config.json, .mcp.json, ~/.claude.json, .vscode/mcp.json or .cursor/mcp.json as they are '
    + '(mcpServers or servers, type stdio|http|sse) and writes each server in OryxOS\'s shape. References stay references: ${env:X} becomes ${X}, '
    + 'a VS Code ${input:api-key} becomes ${API_KEY} to set in the environment. A server of a name already declared is skipped unless --force. '
    + 'To use a .mcp.json without copying it, leave it where it is: OryxOS reads it by default.';
  static override examples = [
    '<%= config.bin %> mcp import ~/.config/Claude/claude_desktop_config.json',
    '<%= config.bin %> mcp import .vscode/mcp.json --force',
  ];
  static override enableJsonFlag = true;
  static override args = { file: Args.string({ description: 'The file to read.', required: true }) };
  static override flags = { force: Flags.boolean({ summary: 'Replace servers of the same name.' }) };

  async run(): Promise<{ file: string; items: (Imported & { written: boolean })[] }> {
    const { args, flags } = await this.parse(McpImport);
    const source = path.resolve(args.file.replace(/^~(?=$|\/)/, process.env.HOME ?? '~'));
    const { readForeignServers, addServer } = await import('../../config-writer.ts');
    const found = await readForeignServers(source);
    const { kernel } = await this.boot({ logger: quietMcpLogger((l) => this.logToStderr(l)) });
    const file = kernel.service('mcp').serversFile!;
    const items: (Imported & { written: boolean })[] = [];
    for (const item of found) {
      if (!item.server) { items.push({ ...item, written: false }); continue; }
      try {
        await addServer(file, item.name, item.server, { force: flags.force });
        items.push({ ...item, written: true });
      } catch (error) {
        items.push({ ...item, skipped: (error as Error).message, written: false });
      }
    }
    if (!this.jsonEnabled()) {
      for (const i of items) {
        this.log(i.written ? `imported ${i.name}${i.from ? ` (was "${i.from}")` : ''}` : `skipped ${i.name}: ${i.skipped}`);
        for (const note of i.notes) this.log(`  ${note}`);
      }
      const n = items.filter((i) => i.written).length;
      this.log(`${n} of ${items.length} server(s) from ${shownPath(source)} written to ${shownPath(file)}.`);
    }
    if (items.some((i) => !i.written)) process.exitCode = 1;
    return { file, items };
  }
}
