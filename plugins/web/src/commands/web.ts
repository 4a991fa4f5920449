import { Flags } from '@oclif/core';
import type { Logger } from '@oryxos/kernel';
import { OryxCommand } from '@oryxos/command-kit';
import { webError } from '../errors.ts';
import '../index.ts';

export default class Web extends OryxCommand {
  static override serving = true;
  static override summary = 'Serve the agents over HTTP: REST, SSE streaming and an OpenAI-compatible /v1.';
  static override description = 'Starts the web plugin\'s server (web() in oryx.config.ts) and prints its URL. '
    + 'On SIGINT or SIGTERM it stops accepting connections, lets runs in flight finish for the grace period, '
    + 'aborts the rest (their sessions keep every committed message), closes the kernel and the database, and exits 0. '
    + 'Every route but /health needs a bearer token: ORYX_WEB_TOKEN, else one generated into <workspace>/web-token '
    + '(mode 0600, kept across restarts, replaced with --new-token). The token is not printed (service logs keep what a server prints): '
    + 'it says which file holds it; --show-token prints the console URL with the token after #token= for this start. '
    + 'Endpoints are listed at /docs.';
  static override examples = [
    '<%= config.bin %> web',
    '<%= config.bin %> web --port 9000',
    '<%= config.bin %> web --new-token',
    '<%= config.bin %> web --show-token',
    'ORYX_WEB_TOKEN=$(openssl rand -hex 32) <%= config.bin %> web --host 0.0.0.0',
  ];
  static override flags = {
    host: Flags.string({ summary: 'Interface to bind (default: the host option of web(), else 127.0.0.1).' }),
    port: Flags.integer({ char: 'p', summary: 'Port (default: the port option of web(), else 8787; 0 picks a free one).', min: 0, max: 65535 }),
    grace: Flags.integer({ summary: 'Milliseconds runs in flight may take to finish on shutdown (default: shutdownGraceMs, 10000).', min: 0 }),
    quiet: Flags.boolean({ char: 'q', summary: 'Do not print a line per request.', default: false }),
    'new-token': Flags.boolean({ summary: 'Replace the generated token in <workspace>/web-token with a new one before serving.', default: false }),
    'show-token': Flags.boolean({ summary: 'Print the console URL with the generated token (after #token=) for this start; by default only the file that holds it is named.', default: false }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Web);
    const logger: Logger = {
      debug: () => {},
      info: (m) => { if (!flags.quiet) this.log(m); },
      warn: (m) => this.logToStderr(`warning: ${m}`),
    };
    const { kernel } = await this.boot({ logger });
    if (!kernel.hasService('web')) {
      throw webError('ORYX_E_WEB_NOT_ENABLED', 'The web plugin is not enabled in oryx.config.ts');
    }
    const web = kernel.service('web');
    // Signals are caught before listening, so one that arrives during startup still shuts down cleanly.
    const stop = new Promise<string>((resolve) => {
      process.once('SIGINT', () => resolve('SIGINT'));
      process.once('SIGTERM', () => resolve('SIGTERM'));
    });
    if (flags['new-token']) {
      await web.rotateToken();
      this.log(`new token written to ${web.tokenFile}; the old one no longer works`);
    }
    const { url } = await web.listen({ host: flags.host, port: flags.port });
    this.log(`oryx web listening on ${url} (docs: ${url}/docs)`);
    // Every other enabled door (the scheduler, channels) starts with the server: this command is
    // their host. Each says on the log that it started.
    await kernel.startDoors();
    const { auth, token, tokenFrom } = web.options;
    if (auth === 'none') this.log('auth: none');
    else if (token !== undefined) this.log(`auth: bearer token from ${tokenFrom === 'option' ? 'web({ token })' : 'ORYX_WEB_TOKEN'}`);
    else if (flags['show-token']) {
      // The fragment never reaches a server or its logs; the console reads the token from it.
      this.log(`console: ${url}/#token=${await web.token()}`);
      this.log(`auth: bearer token kept in ${web.tokenFile}`);
    } else {
      // Not the token itself: whatever keeps this process's output (a service log, a terminal's
      // scroll-back) would keep the credential of the whole API.
      this.log(`console: ${url}/ (it asks for the token: oryx web --show-token prints a console URL that carries it, or read ${web.tokenFile})`);
      this.log(`auth: bearer token kept in ${web.tokenFile}`);
    }
    const signal = await stop;
    const grace = flags.grace ?? web.options.shutdownGraceMs;
    const scheduled = kernel.hasService('scheduler') ? kernel.service('scheduler').inFlight : 0;
    this.log(`${signal}: shutting down (${web.inFlight + scheduled} run(s) in flight, ${grace} ms grace)`);
    const reports = Object.values(await kernel.stopDoors({ graceMs: grace }));
    this.log(`stopped: ${reports.reduce((n, r) => n + r.finished, 0)} run(s) finished, ${reports.reduce((n, r) => n + r.aborted, 0)} aborted`);
    // The kernel (and with it the database) is closed by OryxCommand.finally.
  }
}
