import { Args, Flags } from '@oclif/core';
import { OryxError, errorMessage } from '@oryxos/provider-spec';
import type { ToolResult } from '@oryxos/kernel';
import { OryxCommand } from '@oryxos/command-kit';
import { quietMcpLogger } from '../../cli-logger.ts';

export default class McpCall extends OryxCommand {
  static override summary = 'Call one tool of an MCP server by hand and print its result.';
  static override description = 'For debugging a server: the call goes straight to the server (its sandbox check at start still applies), '
    + 'not through an agent, so no beforeTool/afterTool hooks run. An error result is printed and exits with status 1.';
  static override examples = [
    '<%= config.bin %> mcp call filesystem list_directory --args \'{"path": "."}\'',
    '<%= config.bin %> mcp call everything get-sum --args \'{"a": 1, "b": 2}\' --json',
  ];
  static override enableJsonFlag = true;
  static override args = {
    name: Args.string({ description: 'The server name (see `oryx mcp list`).', required: true }),
    tool: Args.string({ description: 'The tool, by the server\'s name for it (see `oryx mcp tools NAME`).', required: true }),
  };
  static override flags = {
    args: Flags.string({ summary: 'The arguments, as a JSON object.', default: '{}' }),
    timeout: Flags.integer({ summary: 'Time limit in ms (default: the server\'s timeoutMs).', min: 1 }),
  };

  async run(): Promise<{ server: string; tool: string; result: ToolResult }> {
    const { args, flags } = await this.parse(McpCall);
    let parsed: unknown;
    try {
      parsed = JSON.parse(flags.args);
    } catch (error) {
      throw new OryxError('ORYX_E_CLI_USAGE', `--args is not valid JSON: ${errorMessage(error)}`, {
        hint: 'Pass a JSON object in single quotes, e.g. --args \'{"path": "."}\'.',
      });
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new OryxError('ORYX_E_CLI_USAGE', '--args must be a JSON object', { hint: 'Wrap the arguments in {…}, e.g. --args \'{"path": "."}\'.' });
    }
    const { kernel } = await this.boot({ logger: quietMcpLogger((l) => this.logToStderr(l)) });
    const controller = new AbortController();
    const onSigint = () => controller.abort();
    process.once('SIGINT', onSigint);
    let result: ToolResult;
    try {
      result = await kernel.service('mcp').call(args.name, args.tool, parsed as Record<string, unknown>, {
        signal: controller.signal, ...(flags.timeout ? { timeoutMs: flags.timeout } : {}),
      });
    } finally {
      process.off('SIGINT', onSigint);
    }
    if (result.isError) process.exitCode = 1;
    if (!this.jsonEnabled()) {
      if (result.isError) this.logToStderr(`${args.tool} returned an error result${result.retryable ? ' (retryable)' : ''}:`);
      this.log(result.content);
    }
    return { server: args.name, tool: args.tool, result };
  }
}
