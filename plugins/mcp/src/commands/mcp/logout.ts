import { Args } from '@oclif/core';
import { OryxCommand } from '@oryxos/command-kit';
import { quietMcpLogger } from '../../cli-logger.ts';

export default class McpLogout extends OryxCommand {
  static override summary = 'Sign out of a remote MCP server: revoke and delete its stored tokens.';
  static override description = 'Where the authorization server offers revocation (RFC 7009), the refresh and access tokens are revoked first; '
    + 'then the stored file is deleted. The next use asks for oryx mcp login again.';
  static override examples = ['<%= config.bin %> mcp logout notion'];
  static override enableJsonFlag = true;
  static override args = { name: Args.string({ description: 'The server name.', required: true }) };

  async run(): Promise<{ server: string; removed: boolean; revoked: number; revocationError?: string }> {
    const { args } = await this.parse(McpLogout);
    const { kernel } = await this.boot({ logger: quietMcpLogger((l) => this.logToStderr(l)) });
    const result = await kernel.service('mcp').logout(args.name);
    if (!this.jsonEnabled()) {
      this.log(result.removed
        ? `Signed out of MCP server "${args.name}": tokens deleted${result.revoked ? `, ${result.revoked} revoked at the authorization server` : ''}.`
        : `No sign-in was stored for MCP server "${args.name}".`);
      if (result.revocationError) this.logToStderr(`warning: revoking failed (${result.revocationError}); the tokens were deleted here all the same.`);
    }
    return { server: args.name, ...result };
  }
}
