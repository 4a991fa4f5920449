import { Args, Flags } from '@oclif/core';
import type { SessionInfo, StoredMessage } from '@oryxos/contracts';
import { OryxCommand } from '@oryxos/command-kit';
import { formatSession } from '../../format-session.ts';
import { resolveSessionId } from '@oryxos/command-kit';

/** A message that cannot be read, as `--json` prints it. */
interface DamagedJson { seq: number; damaged: { code: string; message: string; hint?: string; column?: unknown } }

export default class SessionsShow extends OryxCommand {
  static override readOnly = true;
  static override summary = 'Show a session: its messages, tool calls and tool results.';
  static override description = 'A message that cannot be read (a damaged row) is shown in its place as UNREADABLE, with the reason; '
    + '`oryx sessions repair ID` moves such messages aside. A session a sub-agent ran in names its parent session; a session '
    + 'whose agent called sub-agents lists their sessions (children).';
  static override examples = [
    '<%= config.bin %> sessions show 3f2a9c1e',
    '<%= config.bin %> sessions show 3f2a9c1e --last 10',
    '<%= config.bin %> sessions show 3f2a9c1e --json',
  ];
  static override enableJsonFlag = true;
  static override args = {
    id: Args.string({ description: 'Session id (or a unique prefix of it).', required: true }),
  };
  static override flags = {
    last: Flags.integer({ char: 'l', summary: 'Only the last N messages.', min: 1 }),
    full: Flags.boolean({ summary: 'Do not cut long messages.', default: false }),
  };

  /** The session, the sessions of its sub-agents and its messages, the shape of GET /api/sessions/:id. */
  async run(): Promise<SessionInfo & { children: SessionInfo[]; messages: (StoredMessage | DamagedJson)[] }> {
    const { args, flags } = await this.parse(SessionsShow);
    const { kernel } = await this.boot();
    const store = kernel.service('sessions');
    const session = await resolveSessionId(store, args.id);
    const query = flags.last ? { limit: flags.last } : {};
    const messages = store.scan ? await store.scan(session.id, query) : await store.messages(session.id, query);
    const children = (await store.list({ parentSessionId: session.id, limit: 100 })).items;
    if (!this.jsonEnabled()) this.log(formatSession(session, messages, { full: flags.full, children }));
    return {
      ...session,
      children,
      messages: messages.map((m) => ('damaged' in m
        ? { seq: m.seq, damaged: { code: m.damaged.code, message: m.damaged.message, hint: m.damaged.hint, column: m.damaged.data?.column } }
        : m)),
    };
  }
}
