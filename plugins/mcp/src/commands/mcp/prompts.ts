import { Args, Flags } from '@oclif/core';
import { OryxError, errorMessage } from '@oryxos/provider-spec';
import { OryxCommand, table } from '@oryxos/command-kit';
import { quietMcpLogger } from '../../cli-logger.ts';
import type { McpPromptInfo, McpPromptResult } from '../../server.ts';

export default class McpPrompts extends OryxCommand {
  static override readOnly = true;
  static override summary = 'List the prompts of an MCP server, or get one filled in.';
  static override description = 'Without PROMPT: each prompt with its arguments. With PROMPT: its messages, with the arguments given as a JSON object of strings.';
  static override examples = ['<%= config.bin %> mcp prompts everything', '<%= config.bin %> mcp prompts everything args-prompt --args \'{"city": "Paris"}\''];
  static override enableJsonFlag = true;
  static override args = {
    name: Args.string({ description: 'The server name.', required: true }),
    prompt: Args.string({ description: 'A prompt to get.' }),
  };
  static override flags = { args: Flags.string({ summary: 'The prompt\'s arguments, as a JSON object of strings.', default: '{}' }) };

  async run(): Promise<{ server: string; prompts?: McpPromptInfo[]; prompt?: McpPromptResult }> {
    const { args, flags } = await this.parse(McpPrompts);
    let values: Record<string, string>;
    try {
      values = JSON.parse(flags.args) as Record<string, string>;
    } catch (error) {
      throw new OryxError('ORYX_E_CLI_USAGE', `--args is not valid JSON: ${errorMessage(error)}`, { hint: 'Pass a JSON object in single quotes, e.g. --args \'{"topic": "tea"}\'.' });
    }
    if (!values || typeof values !== 'object' || Array.isArray(values) || Object.values(values).some((v) => typeof v !== 'string')) {
      throw new OryxError('ORYX_E_CLI_USAGE', '--args must be a JSON object of strings', { hint: 'Prompt arguments are strings: --args \'{"count": "3"}\'.' });
    }
    const { kernel } = await this.boot({ logger: quietMcpLogger((l) => this.logToStderr(l)) });
    const mcp = kernel.service('mcp');
    if (args.prompt) {
      const prompt = await mcp.getPrompt(args.name, args.prompt, values);
      if (!this.jsonEnabled()) for (const m of prompt.messages) this.log(`${m.role}: ${m.content}`);
      return { server: args.name, prompt };
    }
    const prompts = await mcp.prompts(args.name);
    if (!this.jsonEnabled()) {
      this.log(prompts.length
        ? table(prompts.map((p) => ({ prompt: p.name, arguments: p.arguments.map((a) => `${a.name}${a.required ? '' : '?'}`).join(' '), description: p.description ?? p.title ?? '' })), ['prompt', 'arguments', 'description'])
        : `MCP server "${args.name}" offers no prompts.`);
    }
    return { server: args.name, prompts };
  }
}
