/**
 * @oryxos/plugin-replay: record model traffic to a cassette, replay it without network.
 *
 * @example
 * import replay from '@oryxos/plugin-replay';
 * export default defineConfig({ defaultProvider: 'replay', plugins: [replay({ cassette: 'demo' })] });
 */
export { default, default as replay } from './replay.ts';
export type { ReplayOptions } from './options.ts';
export { ERROR_CODES } from './errors.ts';
// The cassette contract itself lives in @oryxos/provider-kit/cassette (oryx eval uses it too).
export {
  conversationKey, parseCassette, type CassetteEntry, type KeyMessage, type RecordedResponse, type PromptPrint,
} from '@oryxos/provider-kit/cassette';
