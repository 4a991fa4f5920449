import { readFile } from 'node:fs/promises';
import type { Provider } from '@oryxos/kernel';
import type { ReplaySettings } from './provider.ts';

/**
 * The model named by the cassette's last line that names one, read without the cassette's
 * parser: what `defaultModel` reports until the first call loads the cassette in full (for a
 * valid cassette, the same model). Undefined when no line names one or a line read on the way,
 * from the end, is not JSON.
 */
export function lastModel(text: string): string | undefined {
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!.trim();
    if (!line || line.startsWith('#') || line.startsWith('//')) continue;
    let model: unknown;
    try { model = (JSON.parse(line) as { model?: unknown } | null)?.model; } catch { return undefined; }
    if (typeof model === 'string' && model) return model;
  }
  return undefined;
}

/**
 * The replay provider as registered in setup: its name, retry policy and default model are
 * known at once, and its code (the cassette's parser and matcher, provider.ts) loads with the
 * first model call, so a command that calls no model (`oryx agents`) does not compile it.
 * `preload` (at init) reads the cassette's last model for `defaultModel`.
 */
export function lazyReplayProvider(settings: ReplaySettings): Provider & { preload(): Promise<void> } {
  let loaded: Provider | undefined;
  let loading: Promise<Provider> | undefined;
  let preloaded: string | undefined;
  const load = () => (loading ??= import('./provider.ts').then(({ replayProvider }) => (loaded = replayProvider(settings))));
  return {
    name: settings.name,
    get defaultModel() { return loaded ? loaded.defaultModel : settings.defaultModel ?? preloaded ?? 'replay'; },
    async preload() { preloaded = lastModel(await readFile(settings.file, 'utf8').catch(() => '')); },
    // A recording never changes on a second try.
    retry: { maxRetries: 0 },
    async chat(request) { return (loaded ?? await load()).chat(request); },
    async *stream(request) { yield* (loaded ?? await load()).stream!(request); },
  };
}
