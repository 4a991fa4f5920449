import { Flags } from '@oclif/core';
import type { Logger } from '@oryxos/kernel';
import { OryxCommand } from '@oryxos/command-kit';
import { DOOR } from '../../door.ts';
import { mcpServeError } from '../../errors.ts';

export default class McpServe extends OryxCommand {
  static override serving = true;
  static override summary = 'Serve the exposed agents as MCP tools on stdin and stdout (what MCP clients launch).';
  static override description = 'Speaks MCP over stdio until the client closes stdin (or SIGINT / SIGTERM): each agent listed in '
    + 'mcpServer({ agents }) is a tool ask_<agent> taking {message, session?}. Calls run through the `mcp` door with the client\'s name '
    + 'as the run\'s user; they show in `oryx sessions`, `oryx runs` and the audit like any run. Logs go to stderr: stdout carries only the protocol.';
  static override examples = ['<%= config.bin %> mcp serve', 'claude mcp add oryx -- npx oryx mcp serve'];
  static override flags = {
    grace: Flags.integer({ summary: 'Milliseconds calls going on may take to finish on shutdown (default: graceMs of mcpServer(), 10000).', min: 0 }),
    verbose: Flags.boolean({ char: 'v', summary: 'Also print debug lines (to stderr).', default: false }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(McpServe);
    // stdout is the protocol's: every line for people goes to stderr.
    const logger: Logger = {
      debug: (m) => { if (flags.verbose) this.logToStderr(m); },
      info: (m) => this.logToStderr(m),
      warn: (m) => this.logToStderr(`warning: ${m}`),
    };
    const { kernel } = await this.boot({ logger });
    if (!kernel.hasService('mcpServer')) {
      throw mcpServeError('ORYX_E_MCPSERVE_NOT_ENABLED', `oryx mcp serve: the MCP server plugin is not enabled in ${kernel.config.file ?? 'oryx.config.ts'}`);
    }
    const door = kernel.service('mcpServer');
    const signal = new Promise<string>((resolve) => {
      process.once('SIGINT', () => resolve('SIGINT'));
      process.once('SIGTERM', () => resolve('SIGTERM'));
    });
    await kernel.startDoors([DOOR]);
    const connection = await door.serveStdio();
    logger.info(`oryx mcp serve: serving ${door.options.agents.map((a) => `${a.tool} (${a.agent})`).join(', ')} on stdio`);
    const why = await Promise.race([signal, connection.closed.then(() => 'the client closed the connection')]);
    logger.info(`${why}: stopping`);
    const report = (await kernel.stopDoors(flags.grace !== undefined ? { graceMs: flags.grace } : {}))[DOOR] ?? { finished: 0, aborted: 0 };
    logger.info(`stopped: ${report.finished} call(s) finished, ${report.aborted} aborted`);
  }
}
