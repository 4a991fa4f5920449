import { createInterface, type Interface } from 'node:readline/promises';
import { Flags } from '@oclif/core';
import { OryxError, errorMessage, isOryxError } from '@oryxos/provider-spec';
import type { RunEvent } from '@oryxos/kernel';
import { OryxCommand } from '@oryxos/command-kit';
import { assertText } from '../text.ts';

import { cliDoor, type ApprovalMode } from '../approval-tap.ts';
import { RunProgress, paintFor, progressLogger, terminalMode } from '../progress.ts';
import { resolveSessionId } from '@oryxos/command-kit';
import { chatCommand, type ChatState } from '../chat-commands.ts';

export default class Chat extends OryxCommand {
  static override summary = 'Chat with an agent in an interactive session.';
  static override description = 'Streams answers as they come. Type /help for the commands: /new, /session, /sessions, /resume ID, /agent NAME, /model NAME, /exit (or Ctrl-D) to leave. '
    + 'Ctrl-C (or Esc) while the agent works, or at an approval question, cancels that run. A tool call that needs approval is asked for ([y]es / [n]o / [a]lways for this run); '
    + 'with piped input it is denied (--approval).';
  static override examples = ['<%= config.bin %> chat', '<%= config.bin %> chat -s 3f2a9c1e'];
  static override flags = {
    agent: Flags.string({ char: 'a', summary: 'Agent name (default: the session\'s agent with --session, else defaultAgent from the config).' }),
    session: Flags.string({ char: 's', summary: 'Resume this session: its id, or a unique prefix of it (the 8 characters `oryx sessions` shows).' }),
    stream: Flags.boolean({ summary: 'Stream tokens (on by default; --no-stream to wait for whole answers).', default: true, allowNo: true }),
    color: Flags.boolean({ summary: 'Colour on a terminal (--no-color, or NO_COLOR, turns it off).', default: true, allowNo: true }),
    approval: Flags.string({
      summary: 'A tool call that needs approval: ask (deny when input is not a terminal), deny it, or wait (store it for `oryx approvals`).',
      options: ['ask', 'deny', 'wait'], default: 'ask',
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Chat);
    const progress = await RunProgress.create(terminalMode({ json: false, color: flags.color }), {
      write: (text) => { process.stderr.write(text); }, clean: (t) => this.forPeople(t),
    });
    let asking: Interface | undefined;
    const mode = terminalMode({ json: false, color: flags.color });
    const door = cliDoor({
      mode: flags.approval as ApprovalMode, interactive: !!process.stdin.isTTY, rl: () => asking, escape: true,
      paint: await paintFor(mode), clean: (t) => this.forPeople(t), write: (t) => { process.stderr.write(t); }, quiet: () => progress?.finish(),
    });
    const { kernel, service, config } = await this.boot({
      logger: progressLogger(progress, (line) => this.logToStderr(line)), plugins: [door],
    });
    const resumed = flags.session ? await resolveSessionId(kernel.service('sessions'), flags.session) : undefined;
    const agent = flags.agent ?? resumed?.agent ?? config.defaultAgent;
    if (resumed && resumed.agent !== agent) {
      throw new OryxError('ORYX_E_SESSION_AGENT_MISMATCH', `Session "${resumed.id}" belongs to agent "${resumed.agent}", not "${agent}"`, {
        hint: `Resume it with --agent ${resumed.agent}, or start a new session.`,
      });
    }
    const state: ChatState = { agent, ...(resumed ? { session: resumed.id } : {}) };
    const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: process.stdin.isTTY });
    asking = rl;
    let running: AbortController | undefined;
    // First Ctrl-C cancels the run going on; another one (or one at the prompt) leaves.
    rl.on('SIGINT', () => { if (running && !running.signal.aborted) running.abort(); else rl.close(); });
    // Esc while the agent works interrupts it too, as in Claude Code and Codex (readline decodes the key).
    const onKey = (_: string, key?: { name?: string }) => { if (key?.name === 'escape' && running && !running.signal.aborted) running.abort(); };
    if (process.stdin.isTTY) process.stdin.on('keypress', onKey);
    this.log(`Chatting with ${agent}${state.session ? ` (session ${state.session})` : ''}. /help for commands, /exit to leave.`);
    const prompt = () => { if (process.stdin.isTTY) process.stdout.write('you> '); };
    prompt();
    // The async iterator buffers lines that arrive while a run is in progress (piped input).
    for await (const raw of rl) {
      const line = raw.trim();
      if (!line) { prompt(); continue; }
      if (line === '/exit' || line === '/quit') break;
      try {
        const said = await chatCommand(line, state, kernel);
        if (said !== undefined) { this.log(said); prompt(); continue; }
      } catch (error) {
        this.logToStderr(isOryxError(error) ? `error ${error.code}: ${error.message}${error.hint ? `\n  hint: ${error.hint}` : ''}` : `error: ${errorMessage(error)}`);
        prompt();
        continue;
      }
      const { agent, session, model } = state;
      running = new AbortController();
      let streamed = false;
      const onEvent = (e: RunEvent) => {
        progress?.onEvent(e);
        if (e.type === 'token') { if (!streamed) process.stdout.write(`${agent}> `); process.stdout.write(this.forPeople(e.text)); streamed = true; }
        if (e.type === 'assistant' && streamed) { process.stdout.write('\n'); streamed = false; }
        if (progress) return;
        if (e.type === 'tool_call') this.logToStderr(`  → ${e.call.name} ${JSON.stringify(e.call.args).slice(0, 200)}`);
        if (e.type === 'tool_result' && e.result.isError) this.logToStderr(`  ✗ ${e.call.name}: ${e.result.content.slice(0, 200)}`);
      };
      try {
        assertText(line, 'this line');
        const result = await service.process({ agent, session, message: line, stream: flags.stream, signal: running.signal, onEvent, door: 'cli', ...(model ? { model } : {}) });
        progress?.finish();
        state.session = result.sessionId;
        if (result.stopReason === 'error') this.logToStderr(`error ${result.error?.code}: ${result.error?.message}`);
        else if (!flags.stream || result.stopReason !== 'final') this.log(`${agent}> ${result.answer}`);
        if (result.stopReason === 'aborted') this.logToStderr('(cancelled)');
        else if (result.stopReason === 'suspended') {
          const id = String(result.suspended?.[0]?.data?.approvalId ?? '');
          this.logToStderr(`(${result.notice}${id ? `: decide with \`${this.config.bin} approvals approve|deny ${id.slice(0, 8)}\`` : ''})`);
        }
        else if (result.stopReason !== 'final' && result.stopReason !== 'error') this.logToStderr(`(${result.notice ?? result.stopReason})`);
      } catch (error) {
        this.logToStderr(isOryxError(error) ? `error ${error.code}: ${error.message}${error.hint ? `\n  hint: ${error.hint}` : ''}` : `error: ${errorMessage(error)}`);
      } finally {
        progress?.finish();
        running = undefined;
      }
      prompt();
    }
    process.stdin.off('keypress', onKey);
    rl.close();
  }
}
