import { Args, Flags } from '@oclif/core';
import { OryxError } from '@oryxos/kernel';
import type { RunEvent, RunResult } from '@oryxos/kernel';
import { OryxCommand, readStdin } from '../command.ts';
import { assertText } from '../text.ts';

export default class Run extends OryxCommand {
  static override summary = 'Run an agent on one message and print its answer.';
  static override description = 'Runs the ReAct loop until the agent answers without tool calls or reaches max_iterations. '
    + 'Resume a stored session with --session; pass - as the message to read it from standard input.';
  static override examples = [
    '<%= config.bin %> run "What files are in this folder?"',
    '<%= config.bin %> run -a researcher -s 3f2a… "and the next step?"',
    'echo "summarise README.md" | <%= config.bin %> run - --json',
  ];
  static override enableJsonFlag = true;
  static override args = {
    message: Args.string({ description: 'The message; - (or nothing, with piped input) reads standard input.' }),
  };
  static override flags = {
    agent: Flags.string({ char: 'a', summary: 'Agent name (default: defaultAgent from the config, else assistant).' }),
    session: Flags.string({ char: 's', summary: 'Resume this session id.' }),
    stream: Flags.boolean({ summary: 'Print tokens as the model produces them.', default: false }),
    verbose: Flags.boolean({ char: 'v', summary: 'Show tool calls and results on stderr.', default: false }),
  };

  async run(): Promise<Omit<RunResult, 'error'> & { error?: RunResult['error'] }> {
    const { args, flags } = await this.parse(Run);
    let message = args.message;
    if (message === '-' || (message === undefined && !process.stdin.isTTY)) {
      message = (await readStdin()).trim();
      assertText(message, 'standard input');
    }
    if (!message) {
      throw new OryxError('ORYX_E_CLI_USAGE', 'No message given', { hint: 'Pass the message as an argument, or - to read it from standard input.' });
    }
    const { service, config } = await this.boot();
    const controller = new AbortController();
    // Ctrl-C or a TERM ends the run cleanly: committed steps stay, the kernel closes (MCP
    // servers are shut down, the database is closed).
    const onSigint = () => controller.abort();
    process.once('SIGINT', onSigint);
    process.once('SIGTERM', onSigint);
    const json = this.jsonEnabled();
    const stream = flags.stream && !json;
    let streamed = false;
    const onEvent = (e: RunEvent) => {
      if (e.type === 'token' && stream) { process.stdout.write(this.forPeople(e.text)); streamed = true; }
      if (e.type === 'assistant' && streamed) { process.stdout.write('\n'); streamed = false; }
      if (!flags.verbose || json) return;
      if (e.type === 'tool_call') this.logToStderr(`→ ${e.call.name} ${JSON.stringify(e.call.args)}`);
      if (e.type === 'tool_result') this.logToStderr(`${e.result.isError ? '✗' : '←'} ${e.call.name}: ${e.result.content.slice(0, 200).replace(/\n/g, ' ')}`);
      if (e.type === 'retry') this.logToStderr(`retry ${e.attempt} in ${e.delayMs} ms: ${e.error.message}`);
    };
    let result: RunResult;
    try {
      result = await service.process({
        agent: flags.agent ?? config.defaultAgent, session: flags.session, message, stream, signal: controller.signal, onEvent,
      });
    } finally {
      process.off('SIGINT', onSigint);
      process.off('SIGTERM', onSigint);
    }
    if (json) {
      if (result.stopReason === 'error') process.exitCode = 1;
      return result;
    }
    if (result.stopReason === 'error' && result.error) {
      throw new OryxError(result.error.code, result.error.message, { hint: result.error.hint });
    }
    if (!stream || result.stopReason !== 'final') this.log(result.answer);
    if (result.stopReason === 'limit') this.logToStderr(`note: stopped at max_iterations (${result.iterations}); session ${result.sessionId}`);
    if (result.stopReason === 'aborted') this.logToStderr(`note: aborted; session ${result.sessionId} keeps what was done`);
    if (flags.verbose) this.logToStderr(`session ${result.sessionId} · ${result.iterations} iteration(s) · ${result.usage.inputTokens} in / ${result.usage.outputTokens} out tokens`);
    return result;
  }
}
