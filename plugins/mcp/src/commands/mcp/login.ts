import { Args, Flags } from '@oclif/core';
import { OryxCommand } from '@oryxos/command-kit';
import { quietMcpLogger } from '../../cli-logger.ts';
import type { McpServerStatus } from '../../server.ts';

export default class McpLogin extends OryxCommand {
  static override summary = 'Sign in to a remote MCP server (OAuth 2.1 in the browser).';
  static override description = 'Connects to the server; when it asks for authorization, OryxOS finds its authorization server, registers itself '
    + '(or uses the oauth: clientId of its entry), and prints the sign-in URL, opening a browser when there is a display ($BROWSER, open, xdg-open). '
    + 'The browser comes back to 127.0.0.1; the tokens are kept in your state folder (0600), outside the project, and refreshed without asking. '
    + 'A server with oauth: { grant: client_credentials } signs in without a browser.';
  static override examples = ['<%= config.bin %> mcp login notion', '<%= config.bin %> mcp login notion --no-browser', '<%= config.bin %> mcp login notion --force'];
  static override enableJsonFlag = true;
  static override args = { name: Args.string({ description: 'The server name (see `oryx mcp list`).', required: true }) };
  static override flags = {
    browser: Flags.boolean({ summary: 'Open a browser when there is a display (--no-browser only prints the URL).', default: true, allowNo: true }),
    force: Flags.boolean({ summary: 'Forget the stored sign-in first (revoking it), and sign in again.' }),
  };

  async run(): Promise<McpServerStatus> {
    const { args, flags } = await this.parse(McpLogin);
    const { kernel } = await this.boot({ logger: quietMcpLogger((l) => this.logToStderr(l)) });
    const mcp = kernel.service('mcp');
    const { openBrowser } = await import('../../auth/browser.ts');
    mcp.authorizer = ({ server, url }) => {
      this.logToStderr(`To sign in to MCP server "${server}", open:\n\n  ${url.href}\n`);
      const opened = flags.browser ? openBrowser(url.href) : undefined;
      this.logToStderr(opened ? `(opened with ${opened}; waiting for the browser to come back)` : '(waiting for the browser to come back to 127.0.0.1)');
    };
    const controller = new AbortController();
    const onSigint = () => controller.abort();
    process.once('SIGINT', onSigint);
    try {
      const status = await mcp.login(args.name, { force: flags.force, signal: controller.signal });
      if (!this.jsonEnabled()) this.log(`Signed in to MCP server "${args.name}": ${status.tools} tool(s).`);
      return status;
    } finally {
      process.off('SIGINT', onSigint);
    }
  }
}
