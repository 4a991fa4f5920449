/**
 * `@oryxos/provider-kit/cassette`: the record/replay contract of model traffic. A cassette is a
 * JSONL file of request/response pairs, each request reduced to what replay matches on (user
 * messages, tool calls with their arguments, tool result names and error flags, and when the
 * recorder knew it, a print of the prompt's stable parts); `recordProvider` wraps a provider and
 * appends to one, `replayProvider` answers from one with no network and fails with
 * `ORYX_E_REPLAY_DIVERGED` when the conversation leaves the recording. The replay plugin and
 * `oryx eval` are both built on it; the format is documented in the replay plugin's README.
 *
 * @example
 * import { replayProvider } from '@oryxos/provider-kit/cassette';
 * ctx.registerProvider(replayProvider({ name: 'replay', cassette: 'demo', file: '/proj/.oryxos/cassettes/demo.jsonl', howToRecord: 'run with RECORD=1' }));
 */
export {
  canonical, conversationKey, describe, divergence, findEntry, messageKey, parseCassette, promptDifference, promptPrint, recordResponse,
  type CassetteEntry, type KeyMessage, type LoadedEntry, type PromptPrint, type RecordedResponse,
} from './format.ts';
export { eventsOf, recordProvider, replayProvider, splitText, type ReplaySettings } from './providers.ts';
