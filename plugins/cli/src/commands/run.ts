import { Args, Flags } from '@oclif/core';
import { OryxError } from '@oryxos/provider-spec';
import type { RunEvent, RunResult } from '@oryxos/kernel';
import { OryxCommand, readStdin } from '@oryxos/command-kit';
import { assertText } from '../text.ts';

import { cliDoor, type ApprovalMode } from '../approval-tap.ts';
import { RunProgress, paintFor, progressLogger, terminalMode, toolLine } from '../progress.ts';
import { describeCuts, describeReport, exitCode, EXIT } from '../run-outcome.ts';
import { resolveSessionId } from '@oryxos/command-kit';
import { tokensText } from '@oryxos/command-kit';

export default class Run extends OryxCommand {
  static override summary = 'Run an agent on one message and print its answer.';
  static override description = 'Runs the ReAct loop until the agent answers without tool calls or reaches max_iterations. '
    + 'The words of the message need no quotes. Resume a stored session with --session (its id or the 8 characters '
    + '`oryx sessions` shows); pass - as the message to read it from standard input. On a terminal a spinner shows what the '
    + 'agent is doing, one line per tool call, and a footer with the session, iterations, tokens and time (stderr; '
    + 'not with --json or --quiet). A tool call that needs approval is asked on the terminal ([y]es / [n]o / [a]lways for '
    + 'this run); off a terminal it is denied (--approval). Exit status: 0 for an answer, 3 when the run stopped at a limit, '
    + 'its budget or a loop (the answer is what the model gave without tools, and a note says why), 4 when it waits for an '
    + 'approval (--approval wait), 130 after Ctrl-C, 1 for an error. '
    + 'A second Ctrl-C exits at once.';
  static override examples = [
    '<%= config.bin %> run What files are in this folder?',
    '<%= config.bin %> run -a researcher -s 3f2a9c1e "and the next step?"',
    '<%= config.bin %> run --provider ollama --model qwen2.5:7b "Summarise README.md"',
    'echo "summarise README.md" | <%= config.bin %> run - --json',
  ];
  static override enableJsonFlag = true;
  // Every word is part of the message: `oryx run List the files here` needs no quotes.
  static override strict = false;
  static override args = {
    message: Args.string({ description: 'The message (one or more words); - (or nothing, with piped input) reads standard input.' }),
  };
  static override flags = {
    agent: Flags.string({ char: 'a', summary: 'Agent name (default: the session\'s agent with --session, else defaultAgent from the config, else assistant).' }),
    session: Flags.string({ char: 's', summary: 'Resume this session: its id, or a unique prefix of it (the 8 characters `oryx sessions` shows).' }),
    provider: Flags.string({ summary: 'Use this provider for this run instead of the agent\'s (its default model unless --model).' }),
    model: Flags.string({ summary: 'Use this model for this run instead of the agent\'s.' }),
    stream: Flags.boolean({ summary: 'Print tokens as the model produces them.', default: false }),
    verbose: Flags.boolean({ char: 'v', summary: 'Show tool calls and results on stderr.', default: false }),
    quiet: Flags.boolean({ char: 'q', summary: 'Print only the answer: no spinner, tool lines or footer.', default: false }),
    color: Flags.boolean({ summary: 'Colour on a terminal (--no-color, or NO_COLOR, turns it off).', default: true, allowNo: true }),
    approval: Flags.string({
      summary: 'A tool call that needs approval: ask on the terminal (deny off one), deny it, or wait (store it for `oryx approvals` and stop).',
      options: ['ask', 'deny', 'wait'], default: 'ask',
    }),
  };

  async run(): Promise<RunResult & { approval?: { id: string; tool: string; summary?: string } }> {
    const { argv, flags } = await this.parse(Run);
    const words = argv as string[];
    let message = words.join(' ');
    if (message === '-' || (words.length === 0 && !process.stdin.isTTY)) {
      message = (await readStdin()).trim();
      assertText(message, 'standard input');
    }
    if (!message.trim()) {
      throw new OryxError('ORYX_E_CLI_USAGE', message ? 'The message is only whitespace' : 'No message given', {
        hint: 'Pass the message as words after `oryx run`, or - to read it from standard input.',
      });
    }
    const json = this.jsonEnabled();
    const mode = terminalMode({ json, quiet: flags.quiet, color: flags.color });
    const write = (text: string) => { process.stderr.write(text); };
    const progress = await RunProgress.create(mode, { write, clean: (t) => this.forPeople(t) });
    const controller = new AbortController();
    const paint = await paintFor(mode);
    const door = cliDoor({
      interrupt: () => controller.abort(),
      mode: flags.approval as ApprovalMode, interactive: !!process.stdin.isTTY && !!process.stderr.isTTY,
      paint, clean: (t) => this.forPeople(t), write, quiet: () => progress?.finish(),
    });
    const { kernel, service, config } = await this.boot({
      logger: progressLogger(progress, (line) => this.logToStderr(line)), plugins: [door],
    });
    const session = flags.session ? await resolveSessionId(kernel.service('sessions'), flags.session) : undefined;
    // Ctrl-C or a TERM ends the run cleanly: committed steps stay, the kernel closes (MCP
    // servers are shut down, the database is closed). A second Ctrl-C exits at once.
    const onSigint = () => {
      if (controller.signal.aborted) process.exit(EXIT.interrupted);
      controller.abort();
    };
    process.on('SIGINT', onSigint);
    process.on('SIGTERM', onSigint);
    const stream = flags.stream && !json;
    let streamed = false;
    let cutShown = false;
    let callStarted = 0;
    // Off a terminal (no spinner) every tool call still gets its one line, as a terminal shows it.
    const toolLines = !progress && !flags.quiet && !json && !flags.verbose;
    const onEvent = (e: RunEvent) => {
      progress?.onEvent(e);
      if (toolLines && e.type === 'tool_call') callStarted = performance.now();
      if (toolLines && e.type === 'tool_result') {
        process.stderr.write(`${toolLine({ name: e.call.name, args: e.call.args, result: e.result, ms: performance.now() - callStarted }, paint, (t) => this.forPeople(t))}\n`);
      }
      // Nothing is cut silently: the first cut of a run gets one line (every cut with -v).
      if (e.type === 'prompt' && e.report.cut.length && !json && (!cutShown || flags.verbose)) {
        cutShown = true;
        const line = `warning: the prompt was cut to fit: ${describeCuts(e.report.cut)}`;
        if (progress) progress.detail(line); else this.logToStderr(line);
      }
      if (e.type === 'token' && stream) { process.stdout.write(this.forPeople(e.text)); streamed = true; }
      if (e.type === 'assistant' && streamed) { process.stdout.write('\n'); streamed = false; }
      if (!flags.verbose || json) return;
      if (e.type === 'prompt') {
        const line = `prompt: ${describeReport(e.report)}`;
        if (progress) progress.detail(line); else this.logToStderr(line);
      }
      if (e.type === 'tool_call' && !progress) this.logToStderr(`→ ${e.call.name} ${JSON.stringify(e.call.args)}`);
      if (e.type === 'tool_result') {
        const line = `${e.result.isError ? '✗' : '←'} ${e.call.name}: ${e.result.content.slice(0, 200).replace(/\n/g, ' ')}`;
        if (progress) progress.detail(line); else this.logToStderr(line);
      }
      if (e.type === 'retry' && !progress) this.logToStderr(`retry ${e.attempt} in ${e.delayMs} ms: ${e.error.message}`);
    };
    const started = performance.now();
    let result: RunResult;
    try {
      result = await service.process({
        agent: flags.agent ?? session?.agent ?? config.defaultAgent, session: session?.id, message, stream, signal: controller.signal, onEvent, door: 'cli',
        ...(flags.provider ? { provider: flags.provider } : {}), ...(flags.model ? { model: flags.model } : {}),
      });
    } finally {
      progress?.finish();
      process.off('SIGINT', onSigint);
      process.off('SIGTERM', onSigint);
    }
    process.exitCode = exitCode(result);
    // What a suspended run waits for, as the REST API answers it: the approval's id, tool and summary.
    const waiting = result.suspended?.find((c) => typeof c.data?.approvalId === 'string');
    if (json) return waiting ? { ...result, approval: { id: String(waiting.data!.approvalId), tool: waiting.tool, summary: waiting.reason } } : result;
    if (result.stopReason === 'error' && result.error) {
      throw new OryxError(result.error.code, result.error.message, { hint: result.error.hint });
    }
    if ((!stream || result.stopReason !== 'final') && (result.answer || result.stopReason === 'final')) this.log(result.answer);
    const approval = result.suspended?.[0]?.data?.approvalId;
    if (result.stopReason === 'suspended' && typeof approval === 'string') {
      this.logToStderr(`note: ${result.notice}\n`
        + `  decide: ${this.config.bin} approvals approve ${approval.slice(0, 8)} (or deny ${approval.slice(0, 8)} --reason "…"); session ${result.sessionId}`);
    } else if (result.stopReason !== 'final') {
      this.logToStderr(`note: ${result.notice ?? result.stopReason}; session ${result.sessionId}${result.stopReason === 'aborted' ? ' keeps what was done' : ''}`);
    }
    if (progress) progress.footer(result, performance.now() - started);
    else if (flags.verbose) this.logToStderr(`session ${result.sessionId} · ${result.iterations} iteration(s) · ${tokensText(result.usage)}`);
    return result;
  }
}
