import { Args } from '@oclif/core';
import { OryxCommand, table } from '@oryxos/command-kit';
import { quietMcpLogger } from '../../cli-logger.ts';
import type { McpResourceContent } from '../../content.ts';
import type { McpResourceInfo, McpResourceTemplateInfo } from '../../server.ts';

export default class McpResources extends OryxCommand {
  static override readOnly = true;
  static override summary = 'List the resources of an MCP server, or read one.';
  static override description = 'Without URI: its resources and URI templates. With URI: the contents (text printed, binary summarised; --json has the base64). '
    + 'Agents read them through <server>__read_resource when their tools: list names it.';
  static override examples = ['<%= config.bin %> mcp resources everything', '<%= config.bin %> mcp resources everything demo://resource/static/document/architecture.md'];
  static override enableJsonFlag = true;
  static override args = {
    name: Args.string({ description: 'The server name.', required: true }),
    uri: Args.string({ description: 'A resource URI to read.' }),
  };

  async run(): Promise<{ server: string; resources?: McpResourceInfo[]; templates?: McpResourceTemplateInfo[]; contents?: McpResourceContent[] }> {
    const { args } = await this.parse(McpResources);
    const { kernel } = await this.boot({ logger: quietMcpLogger((l) => this.logToStderr(l)) });
    const mcp = kernel.service('mcp');
    if (args.uri) {
      const contents = await mcp.readResource(args.name, args.uri);
      if (!this.jsonEnabled()) {
        for (const c of contents) {
          if (contents.length > 1) this.log(`--- ${c.uri}${c.mimeType ? ` (${c.mimeType})` : ''}`);
          this.log(typeof c.text === 'string' ? c.text : `[${c.mimeType ?? 'binary'}, ${Buffer.byteLength(c.blob ?? '', 'base64')} bytes; --json has it as base64]`);
        }
      }
      return { server: args.name, contents };
    }
    const { resources, templates } = await mcp.resources(args.name);
    if (!this.jsonEnabled()) {
      this.log(resources.length ? table(resources.map((r) => ({ uri: r.uri, name: r.title ?? r.name, type: r.mimeType ?? '' })), ['uri', 'name', 'type']) : `MCP server "${args.name}" lists no resources.`);
      if (templates.length) this.log(`\nURI templates:\n${table(templates.map((t) => ({ template: t.uriTemplate, name: t.title ?? t.name })), ['template', 'name'])}`);
    }
    return { server: args.name, resources, templates };
  }
}
