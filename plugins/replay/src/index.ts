/**
 * @oryxos/plugin-replay: record model traffic to a cassette, replay it without network.
 *
 * The cassette's parser and matcher load with the first model call; programs that read
 * cassettes themselves import them from `@oryxos/plugin-replay/cassette`.
 *
 * @example
 * import replay from '@oryxos/plugin-replay';
 * export default defineConfig({ defaultProvider: 'replay', plugins: [replay({ cassette: 'demo' })] });
 */
export { default, default as replay } from './replay.ts';
export type { ReplayOptions } from './options.ts';
export { ERROR_CODES } from './errors.ts';
export type { CassetteEntry, KeyMessage, RecordedResponse } from './cassette.ts';
