import type { EventStore } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** How many events one MCP session keeps for a client that reconnects; older ones are dropped. */
export const KEPT_EVENTS = 1000;
/** And how many characters of them (a result with images is large): older ones are dropped past it. */
export const KEPT_CHARS = 8_000_000;

/**
 * The events of one MCP session's streams, kept in memory so a client whose connection dropped
 * can reconnect with `Last-Event-ID` and get what it missed (a long call's progress and result):
 * the SDK's `EventStore`. Event ids are `<stream>_<n>`; the session's last {@link KEPT_EVENTS}
 * events are kept, at most {@link KEPT_CHARS} characters of them, and the store goes with the session.
 *
 * @example
 * new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator, eventStore: new SessionEventStore() });
 */
export class SessionEventStore implements EventStore {
  private readonly events: { id: string; stream: string; message: JSONRPCMessage; chars: number }[] = [];
  private seq = 0;
  private chars = 0;

  constructor(private readonly keep = KEPT_EVENTS, private readonly keepChars = KEPT_CHARS) {}

  async storeEvent(stream: string, message: JSONRPCMessage): Promise<string> {
    const id = `${stream}_${++this.seq}`;
    const chars = JSON.stringify(message).length;
    this.events.push({ id, stream, message, chars });
    this.chars += chars;
    // The newest event stays even when it alone is over the bound: it is what a client reconnecting needs most.
    while (this.events.length > 1 && (this.events.length > this.keep || this.chars > this.keepChars)) this.chars -= this.events.shift()!.chars;
    return id;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.events.find((e) => e.id === eventId)?.stream;
  }

  /** Sends the events of `lastEventId`'s stream that came after it (priming events carry nothing and are skipped). */
  async replayEventsAfter(lastEventId: string, { send }: { send(eventId: string, message: JSONRPCMessage): Promise<void> }): Promise<string> {
    const at = this.events.findIndex((e) => e.id === lastEventId);
    if (at < 0) return '';
    const { stream } = this.events[at]!;
    for (const e of this.events.slice(at + 1)) {
      if (e.stream === stream && Object.keys(e.message).length > 0) await send(e.id, e.message);
    }
    return stream;
  }
}
