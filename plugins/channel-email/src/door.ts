/**
 * The email door: one IMAP connection (IDLE, a scan at least every `pollMs`, reconnect with
 * backoff), each new mail claimed by its Message-ID before anything else, answered by the
 * agent in the session of its thread, and replied to over SMTP through the notify service.
 */
import { claimLiveness, claimOwnerId } from '@oryxos/plugin-kit';
import type { ImapFlow } from 'imapflow';
import type { DoorCheck, PluginContext, RunContext, RunResult, StopReport } from '@oryxos/kernel';
import { errorMessage, isOryxError } from '@oryxos/provider-spec';
import { MailClaims, type MailRow } from './claims.ts';
import { emailError, type EmailErrorCode } from './errors.ts';
import { imapClient, imapFailure } from './imap.ts';
import { agentMessage, allowed, ignoreReason, parseMail, threadOf, type IncomingMail } from './mail.ts';
import type { ResolvedEmailOptions } from './options.ts';
import { buildReply, domainOf, type Reply } from './reply.ts';

/** The door's name: runs it starts say `door: 'email'`, sessions it opens `external.door: 'email'`. */
export const DOOR = 'email';

const sleep = (ms: number, signal: AbortSignal) => new Promise<void>((resolve) => {
  if (signal.aborted) return resolve();
  const timer = setTimeout(done, ms);
  function done() { clearTimeout(timer); signal.removeEventListener('abort', done); resolve(); }
  signal.addEventListener('abort', done, { once: true });
});

/** One mail being answered in this process. */
interface InFlight { controller: AbortController; done: Promise<void> }

export class EmailDoor {
  readonly claims: MailClaims;
  readonly owner = claimOwnerId();
  private readonly inFlight = new Map<string, InFlight>();
  private readonly isLive: (row: MailRow) => boolean;
  private client?: ImapFlow;
  private stopping = new AbortController();
  private loop?: Promise<void>;
  private wake?: () => void;
  private timers: NodeJS.Timeout[] = [];
  private pass = '';
  private domain = 'oryx.invalid';
  private waiting: (() => void)[] = [];
  private running = 0;

  constructor(private readonly ctx: PluginContext, private readonly o: ResolvedEmailOptions) {
    this.claims = new MailClaims(() => ctx.service('database'), `${o.imap.user}@${o.imap.host}:${o.imap.port}/${o.imap.mailbox}`);
    const live = claimLiveness(this.owner, (key) => this.inFlight.has(key), o.leaseMs);
    this.isLive = (row) => live({ key: row.message_id, owner: row.owner, heartbeat_at: row.heartbeat_at }, Date.now());
  }

  private get agent(): string { return this.o.agent ?? this.ctx.config.defaultAgent ?? 'assistant'; }

  /** The password, registered as a secret; ORYX_E_EMAIL_SECRET_MISSING names the variable. */
  private password(): string {
    const pass = process.env[this.o.imap.passEnv];
    if (!pass) throw emailError('ORYX_E_EMAIL_SECRET_MISSING', `email(): the IMAP password variable ${this.o.imap.passEnv} is not set`);
    this.ctx.secrets.add(pass);
    return pass;
  }

  /** The notify channel replies go through, or ORYX_E_EMAIL_NO_CHANNEL. */
  private async channel() {
    if (!this.ctx.hasService('notify')) throw emailError('ORYX_E_EMAIL_NO_CHANNEL', `email({ smtp: '${this.o.smtp}' }): the notify plugin is not enabled, so no reply can go out`);
    const found = (await this.ctx.service('notify').channels()).find((c) => c.name === this.o.smtp);
    if (!found) throw emailError('ORYX_E_EMAIL_NO_CHANNEL', `email({ smtp: '${this.o.smtp}' }): notify has no channel named "${this.o.smtp}"`);
    return found;
  }

  /**
   * Connects (a refused login or a missing mailbox fails the start; a server that does not
   * answer is retried in the background), takes over mail a dead process left, then answers
   * new mail until {@link stop}.
   */
  async start(): Promise<void> {
    this.pass = this.password();
    this.domain = domainOf((await this.channel()).from);
    if (!this.o.allow.length) this.ctx.log.warn('email({ allow: [] }): no sender is allowed, so every mail is refused');
    this.stopping = new AbortController();
    let first: ((error?: unknown) => void) | undefined;
    const connected = new Promise<void>((resolve, reject) => { first = (e) => (e ? reject(e) : resolve()); });
    this.loop = this.run((error) => { first?.(error); first = undefined; });
    const beat = setInterval(() => { void this.claims.heartbeat([...this.inFlight.keys()], this.owner).catch((e) => this.ctx.log.warn(`could not renew claims: ${errorMessage(e)}`)); }, Math.max(250, this.o.leaseMs / 3));
    const sweep = setInterval(() => { void this.recover().catch((e) => this.ctx.log.warn(`recovery sweep failed: ${errorMessage(e)}`)); }, Math.max(500, this.o.leaseMs / 2));
    beat.unref(); sweep.unref();
    this.timers.push(beat, sweep);
    await connected;
  }

  /** The connection loop: connect, scan, IDLE; after a drop, wait (doubling to `maxDelayMs`) and connect again. */
  private async run(started: (error?: unknown) => void): Promise<void> {
    const { baseDelayMs, maxDelayMs } = this.o.reconnect;
    let delay = baseDelayMs;
    let opened = false;
    while (!this.stopping.signal.aborted) {
      try {
        await this.connection(() => { delay = baseDelayMs; opened = true; started(); });
      } catch (error) {
        // Failures to connect or log in come classified; anything else (the connection dropped mid-command) as it is.
        const text = isOryxError(error) ? `${error.code} ${error.message}${error.hint ? ` (fix: ${error.hint})` : ''}` : `the IMAP session ended: ${errorMessage(error)}`;
        // A refused login or a missing mailbox at the first start fails the start: retrying cannot fix the config.
        if (!opened && isOryxError(error) && (error.code === 'ORYX_E_EMAIL_AUTH' || error.code === 'ORYX_E_EMAIL_MAILBOX')) {
          started(error);
          for (const t of this.timers.splice(0)) clearInterval(t);
          return;
        }
        this.ctx.log.warn(`${text}; connecting again in ${Math.round(delay)} ms`);
        started();
      }
      if (this.stopping.signal.aborted) break;
      await sleep(delay * (0.8 + Math.random() * 0.4), this.stopping.signal);
      delay = Math.min(maxDelayMs, delay * 2);
    }
  }

  /** One IMAP session, until it closes or the door stops. */
  private async connection(onOpen: () => void): Promise<void> {
    const client = await imapClient(this.o.imap, this.pass).catch((error: unknown) => {
      throw emailError('ORYX_E_EMAIL_CONNECT', `the IMAP client could not be loaded: ${errorMessage(error)}`, { cause: error, hint: 'Reinstall @oryxos/channel-email with its dependencies (oryx plugins install).' });
    });
    const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
    try {
      await client.connect();
      await client.mailboxOpen(this.o.imap.mailbox);
    } catch (error) {
      client.close();
      throw imapFailure(error, this.o.imap);
    }
    this.client = client;
    onOpen();
    this.ctx.log.info(`connected to imap ${this.o.imap.host}:${this.o.imap.port} as ${this.o.imap.user} (${this.o.imap.mailbox})`);
    try {
      await this.recover();
      while (!this.stopping.signal.aborted && client.usable) {
        await this.scan(client);
        let timer: NodeJS.Timeout | undefined;
        let onExists: (() => void) | undefined;
        const woke = new Promise<void>((resolve) => {
          onExists = resolve;
          this.wake = resolve;
          timer = setTimeout(resolve, this.o.pollMs);
          client.on('exists', onExists);
        });
        void client.idle().catch(() => {});
        await Promise.race([woke, closed]);
        clearTimeout(timer);
        if (onExists) client.off('exists', onExists);
      }
    } finally {
      if (this.client === client) this.client = undefined;
      if (client.usable) await client.logout().catch(() => client.close());
    }
  }

  /** The new mail since the cursor: each claimed, then answered (at most `concurrency` at a time). */
  private async scan(client: ImapFlow): Promise<void> {
    const box = client.mailbox;
    if (!box) return;
    const validity = Number(box.uidValidity);
    const next = await this.claims.cursor(validity, this.o.since === 'all' ? 1 : box.uidNext);
    if (!box.exists) return;
    const found: { uid: number; size: number; messageId?: string }[] = [];
    for await (const m of client.fetch(`${next}:*`, { uid: true, size: true, envelope: true }, { uid: true })) {
      if (m.uid >= next) found.push({ uid: m.uid, size: m.size ?? 0, ...(m.envelope?.messageId ? { messageId: m.envelope.messageId } : {}) });
    }
    found.sort((a, b) => a.uid - b.uid);
    for (const m of found) {
      if (this.stopping.signal.aborted) return;
      const messageId = /^<[^<>\s]+@[^<>\s]+>$/.test(m.messageId ?? '') ? m.messageId! : `<${validity}.${m.uid}@imap.invalid>`;
      if (!this.inFlight.has(messageId)) {
        const claim = await this.claims.claim({ messageId, uid: m.uid, uidvalidity: validity, owner: this.owner, isLive: this.isLive });
        if (claim.taken) await this.dispatch(client, claim.row, m.size);
      }
      await this.claims.advance(validity, m.uid + 1);
    }
  }

  /** Claims left open by a process that died (its pid gone, or its lease run out): taken over and answered here. */
  private async recover(): Promise<void> {
    const client = this.client;
    if (!client?.usable || this.stopping.signal.aborted) return;
    const validity = client.mailbox ? Number(client.mailbox.uidValidity) : undefined;
    for (const row of await this.claims.open()) {
      if (this.inFlight.has(row.message_id) || this.isLive(row)) continue;
      const claim = await this.claims.takeOver(row, this.owner, this.isLive);
      if (!claim.taken) continue;
      this.ctx.log.info(`taking over ${row.message_id} (attempt ${claim.row.attempts}): its process stopped before it was answered`);
      let uid = row.uid !== null && row.uidvalidity === validity ? row.uid : undefined;
      if (uid === undefined) {
        const hits = await client.search({ header: { 'message-id': row.message_id } }, { uid: true });
        uid = hits ? hits[0] : undefined;
      }
      if (uid === undefined) {
        await this.claims.finish(row.message_id, this.owner, { status: 'failed', reason: 'the mail is no longer in the mailbox', errorCode: 'ORYX_E_EMAIL_GAVE_UP' });
        continue;
      }
      await this.dispatch(client, { ...claim.row, uid }, 0);
    }
  }

  /** Holds the claim at once (so no sweep takes it over), waits for a free slot, then reads the mail and answers it in the background. */
  private async dispatch(client: ImapFlow, row: MailRow, size: number): Promise<void> {
    const controller = new AbortController();
    const entry: InFlight = { controller, done: Promise.resolve() };
    this.inFlight.set(row.message_id, entry);
    let slot!: () => void;
    const started = new Promise<void>((resolve) => { slot = resolve; });
    entry.done = (async () => {
      while (this.running >= this.o.concurrency) await new Promise<void>((resolve) => this.waiting.push(resolve));
      this.running++;
      slot();
      try {
        // Stopping: left claimed, for the next process.
        if (this.stopping.signal.aborted) return;
        if (size > this.o.maxMessageBytes) {
          await this.claims.finish(row.message_id, this.owner, { status: 'failed', errorCode: 'ORYX_E_EMAIL_TOO_LARGE', reason: `${size} bytes, more than maxMessageBytes (${this.o.maxMessageBytes})` });
          return;
        }
        const fetched = await client.fetchOne(String(row.uid), { source: true }, { uid: true });
        if (!fetched || !fetched.source) throw new Error(`uid ${row.uid} is gone from the mailbox`);
        const mail = await parseMail(fetched.source, row.message_id);
        await this.answer({ ...mail, messageId: row.message_id }, row, controller.signal);
        if (this.o.markSeen) await client.messageFlagsAdd(String(row.uid), ['\\Seen'], { uid: true }).catch(() => {});
      } catch (error) {
        // The claim stays open: after the lease (or a restart) it is taken over and tried again.
        this.ctx.log.warn(`mail ${row.message_id} was not answered: ${errorMessage(error)}`);
      } finally {
        this.running--;
        this.inFlight.delete(row.message_id);
        this.waiting.shift()?.();
      }
    })();
    // The scan goes on once this mail has a slot: mail is read no faster than it is answered.
    await started;
  }

  /** What one claimed mail gets: ignored, refused, or answered by the agent and replied to. */
  private async answer(mail: IncomingMail, row: MailRow, signal: AbortSignal): Promise<void> {
    const finish = (end: Parameters<MailClaims['finish']>[2]) => this.claims.finish(mail.messageId, this.owner, end);
    if (row.status === 'replying' && row.reply && row.reply_message_id) {
      // The reply was written and maybe sent when its process died: sent (again) with the same Message-ID, never run again.
      await this.send(mail.from, mail.messageId, { messageId: row.reply_message_id, subject: row.reply_subject ?? `Re: ${mail.subject}`, text: row.reply, html: row.reply_html ?? '', inReplyTo: mail.messageId, references: [...mail.references, mail.messageId] }, row);
      return;
    }
    if (row.attempts > this.o.maxAttempts) {
      await finish({ status: 'failed', errorCode: 'ORYX_E_EMAIL_GAVE_UP', reason: `tried ${row.attempts - 1} times; each time its process stopped before it was answered` });
      return;
    }
    await this.claims.note(mail.messageId, this.owner, { sender: mail.from, subject: mail.subject });
    const ignored = ignoreReason(mail, this.o.imap.user);
    if (ignored) {
      this.ctx.log.debug(`ignored ${mail.messageId} from ${mail.from}: ${ignored}`);
      await finish({ status: 'ignored', reason: ignored });
      return;
    }
    if (!allowed(mail.from, this.o.allow)) {
      await this.refuse(mail);
      return;
    }
    const thread = threadOf(mail, mail.inReplyTo ? await this.claims.threadOfReply(mail.inReplyTo) : undefined);
    const session = await this.ctx.service('sessions').findOrCreate({ agent: this.agent, external: { door: DOOR, id: thread }, title: mail.subject.slice(0, 200) || undefined });
    await this.claims.note(mail.messageId, this.owner, { thread, session_id: session.id });
    let text: string;
    let result: RunResult | undefined;
    try {
      result = await this.ctx.runs.process({ agent: session.agent, session: session.id, message: agentMessage(mail, this.o), user: mail.from, door: DOOR, signal });
      await this.claims.note(mail.messageId, this.owner, { run_id: result.runId, stop_reason: result.stopReason });
      // Stopped by shutdown: left claimed, so the next process answers it.
      if (result.stopReason === 'aborted' && signal.aborted) return;
      text = this.answerText(result);
    } catch (error) {
      if (signal.aborted) return;
      text = isOryxError(error) && error.code === 'ORYX_E_APPROVAL_WAITING'
        ? `This conversation waits for a person's decision on an earlier step, so your new mail was not read yet. ${error.message}\n${error.hint ?? ''}`
        : `Your mail could not be answered: ${isOryxError(error) ? `${error.code}: ` : ''}${errorMessage(error)}`;
    }
    const reply = buildReply(mail, text, this.domain);
    if (!await this.claims.replying(mail.messageId, this.owner, reply)) return; // taken over meanwhile: the new owner replies
    await this.send(mail.from, mail.messageId, reply, row, result);
  }

  /** What the reply says for a run's result: its answer, and why it stopped short when it did. */
  private answerText(r: RunResult): string {
    if (r.stopReason === 'suspended') {
      const waiting = r.suspended?.[0];
      const id = typeof waiting?.data?.approvalId === 'string' ? waiting.data.approvalId : undefined;
      return `${r.answer ? `${r.answer}\n\n` : ''}A step needs a person's approval before I can go on: ${waiting?.reason ?? 'a tool call waits'}.`
        + (id ? `\nIt is approval ${id}: \`oryx approvals approve ${id.slice(0, 8)}\` (or deny it). The answer follows in this thread.` : '');
    }
    if (r.stopReason === 'error') return `Your mail could not be answered: ${r.error?.code ?? 'error'}: ${r.error?.message ?? ''}`;
    return r.notice && r.stopReason !== 'final' ? `${r.answer}\n\n(${r.notice})` : r.answer;
  }

  /** Sends a reply through the notify channel and ends the mail's claim with how it went. */
  private async send(to: string, messageId: string, reply: Reply, row: MailRow, result?: RunResult): Promise<void> {
    const sent = await this.ctx.service('notify').send({
      channel: this.o.smtp, subject: reply.subject, body: reply.text, html: reply.html, to: [to], messageId: reply.messageId,
      inReplyTo: reply.inReplyTo, references: reply.references, headers: { 'Auto-Submitted': 'auto-replied' },
      origin: `door email, mail ${messageId}`, ...(result ? { sessionId: result.sessionId, runId: result.runId } : row.session_id ? { sessionId: row.session_id } : {}),
    });
    if (sent.status === 'sent') {
      await this.claims.finish(messageId, this.owner, { status: 'answered', notificationId: sent.id });
    } else {
      const why = `${sent.error?.code ?? sent.status}: ${sent.error?.message ?? ''}`;
      this.ctx.log.warn(`ORYX_E_EMAIL_REPLY_FAILED the reply to ${messageId} was not sent (${why})`);
      await this.claims.finish(messageId, this.owner, { status: 'failed', errorCode: 'ORYX_E_EMAIL_REPLY_FAILED' satisfies EmailErrorCode, reason: why, notificationId: sent.id });
    }
  }

  /** A sender not on the allow-list: audited, told `refusal` when there is one, and nothing else. */
  private async refuse(mail: IncomingMail): Promise<void> {
    const reason = `${mail.from} is not on email({ allow })`;
    if (this.ctx.hasService('audit')) {
      await this.ctx.service('audit').sandboxEvent({ decision: 'deny', kind: 'door', target: `email from ${mail.from}`, reason, origin: `door email, mail ${mail.messageId}` })
        .catch((e) => this.ctx.log.warn(`could not audit a refused sender: ${errorMessage(e)}`));
    }
    this.ctx.log.info(`refused ${mail.messageId}: ${reason}`);
    if (this.o.refusal) {
      const reply = buildReply(mail, this.o.refusal, this.domain);
      if (await this.claims.replying(mail.messageId, this.owner, reply)) {
        const sent = await this.ctx.service('notify').send({
          channel: this.o.smtp, subject: reply.subject, body: reply.text, html: reply.html, to: [mail.from], messageId: reply.messageId,
          inReplyTo: reply.inReplyTo, references: reply.references, headers: { 'Auto-Submitted': 'auto-replied' }, origin: `door email, refusal of ${mail.messageId}`,
        });
        await this.claims.finish(mail.messageId, this.owner, { status: 'refused', reason, notificationId: sent.id });
        return;
      }
    }
    await this.claims.finish(mail.messageId, this.owner, { status: 'refused', reason });
  }

  /**
   * A run this door started, continued elsewhere once a person decided (`oryx approvals
   * approve`, the console): its answer goes to the thread it came from, once (a claim row per run).
   */
  async continued(result: RunResult, run: RunContext): Promise<void> {
    if (run.door !== DOOR || !run.continued || result.stopReason === 'aborted') return;
    const last = await this.claims.lastOfSession(result.sessionId);
    if (!last?.sender) return;
    const key = `<continued.${run.runId}@${this.domain}>`;
    const claim = await this.claims.claim({ messageId: key, uid: 0, uidvalidity: 0, owner: this.owner, isLive: () => true });
    if (!claim.taken) return;
    await this.claims.note(key, this.owner, { sender: last.sender, subject: last.subject, thread: last.thread, session_id: result.sessionId, run_id: result.runId, stop_reason: result.stopReason });
    const parent = last.reply_message_id ?? last.message_id;
    const mail: IncomingMail = {
      messageId: parent, from: last.sender, fromDisplay: last.sender, subject: last.subject ?? '', references: [...new Set([last.thread, last.message_id].filter((v): v is string => !!v && v !== parent))],
      text: '', attachments: [], headers: new Map(),
    };
    const reply = buildReply(mail, this.answerText(result), this.domain);
    const text = reply.text.replace(/\n\nOn [^\n]*wrote:\n[\s\S]*$/, '\n');
    await this.claims.replying(key, this.owner, { ...reply, text });
    await this.send(last.sender, key, { ...reply, text }, claim.row, result);
  }

  /** Stops reading mail; runs going on get `graceMs`, then are aborted (their mail is taken over by the next process). */
  async stop(options: { graceMs?: number } = {}): Promise<StopReport> {
    this.stopping.abort();
    this.wake?.();
    for (const t of this.timers.splice(0)) clearInterval(t);
    const client = this.client;
    const before = [...this.inFlight.values()];
    const all = Promise.allSettled(before.map((f) => f.done));
    let timer: NodeJS.Timeout | undefined;
    const graceUp = new Promise<'late'>((resolve) => { timer = setTimeout(() => resolve('late'), options.graceMs ?? this.o.graceMs); });
    const late = await Promise.race([all.then(() => 'done' as const), graceUp]);
    clearTimeout(timer);
    const left = late === 'late' ? [...this.inFlight.values()] : [];
    for (const f of left) f.controller.abort('shutdown');
    await Promise.allSettled(left.map((f) => f.done));
    if (client?.usable) await client.logout().catch(() => client.close());
    await this.loop?.catch(() => {});
    return { finished: before.length - left.length, aborted: left.length };
  }

  /** `oryx doctor`: the login and the mailbox, the notify channel, the allow-list; the password named, never shown. */
  async check(options: { signal: AbortSignal }): Promise<DoorCheck[]> {
    const o = this.o.imap;
    const who = `${o.user} at ${o.host}:${o.port} (tls ${o.tls}), password from env ${o.passEnv}`;
    const lines: DoorCheck[] = [];
    const pass = process.env[o.passEnv];
    if (!pass) {
      const e = emailError('ORYX_E_EMAIL_SECRET_MISSING', `${who}: ${o.passEnv} is not set`);
      lines.push({ check: 'email imap', status: 'fail', detail: e.message, code: e.code, fix: e.hint! });
    } else {
      this.ctx.secrets.add(pass);
      const client = await imapClient(o, pass, 10_000);
      const abort = () => client.close();
      options.signal.addEventListener('abort', abort, { once: true });
      try {
        await client.connect();
        const box = await client.mailboxOpen(o.mailbox, { readOnly: true });
        lines.push({ check: 'email imap', status: 'ok', detail: `logged in as ${who}; ${o.mailbox}: ${box.exists} message(s)` });
      } catch (error) {
        const e = imapFailure(error, o);
        lines.push({ check: 'email imap', status: 'fail', detail: `${e.message} (as ${who})`, code: e.code, fix: e.hint! });
      } finally {
        options.signal.removeEventListener('abort', abort);
        if (client.usable) await client.logout().catch(() => client.close());
      }
    }
    try {
      const c = await this.channel();
      lines.push({ check: 'email smtp', status: 'ok', detail: `replies through notify channel ${c.name} (${c.host}:${c.port}, from ${c.from}, password ${c.password})` });
    } catch (error) {
      lines.push({ check: 'email smtp', status: 'fail', detail: errorMessage(error), ...(isOryxError(error) ? { code: error.code, fix: error.hint! } : {}) });
    }
    lines.push(this.o.allow.length
      ? { check: 'email allow', status: 'ok', detail: `mail is answered from ${this.o.allow.join(', ')}; anyone else is refused${this.o.refusal ? ' with a reply' : ' silently'} and audited` }
      : { check: 'email allow', status: 'warn', detail: 'email({ allow: [] }): every sender is refused' });
    return lines;
  }
}
