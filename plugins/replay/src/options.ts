import path from 'node:path';
import { OryxError } from '@oryxos/provider-spec';
import { shape as s, validateOptions as validate } from '@oryxos/schema-kit';

/** Options of {@link replay}. */
export interface ReplayOptions {
  /** `replay` answers from the cassette (no network); `record` wraps `target` and appends to it. Default `replay`. */
  mode?: 'replay' | 'record';
  /** A name (`<workspace>/cassettes/<name>.jsonl`) or a path to a `.jsonl` file (relative to oryx.config.ts). */
  cassette: string;
  /** The provider name agents refer to. Default `replay`. */
  name?: string;
  /** Record mode: the provider to forward to and record (e.g. `openai`). */
  target?: string;
  /** Replay mode: the model reported when the agent names none. Default: the last model in the cassette. */
  defaultModel?: string;
}

const schema = s.object({
  mode: s.literal('replay', 'record').optional(),
  cassette: s.string({ min: 1 }),
  name: s.string({ pattern: /^[A-Za-z0-9][\w.-]*$/ }).optional(),
  target: s.string({ min: 1 }).optional(),
  defaultModel: s.string({ min: 1 }).optional(),
});

function fail(field: string, message: string): never {
  throw new OryxError('ORYX_E_REPLAY_OPTIONS', `replay(): ${message}`, {
    hint: `Fix ${field} in replay({...}) in oryx.config.ts, e.g. replay({ mode: 'record', cassette: 'demo', target: 'openai' }).`,
    data: { field },
  });
}

/** Validates the factory options at once; the error names the field. */
export function validateOptions(options: unknown): Required<Pick<ReplayOptions, 'mode' | 'cassette' | 'name'>> & ReplayOptions {
  const result = validate(schema, options, { plugin: 'replay', code: 'ORYX_E_REPLAY_OPTIONS', example: "replay({ cassette: 'demo' })" });
  const mode = result.mode ?? 'replay';
  const name = result.name ?? 'replay';
  if (mode === 'record' && !result.target) fail('target', "target is required in record mode (the provider to record, e.g. target: 'openai')");
  if (result.target === name) fail('target', `target must be another provider than this one ("${name}")`);
  if (!isPath(result.cassette) && !/^[\w.-]+$/.test(result.cassette)) {
    fail('cassette', `cassette must be a name made of letters, digits, . _ - or a path to a .jsonl file (was ${JSON.stringify(result.cassette)})`);
  }
  return { ...result, mode, name };
}

const isPath = (cassette: string) => /[\\/]/.test(cassette) || cassette.endsWith('.jsonl');

/** `<workspace>/cassettes/<name>.jsonl` for a name; a path is resolved against the config folder. */
export function cassettePath(cassette: string, config: { root: string; workspaceDir: string }): string {
  return isPath(cassette) ? path.resolve(config.root, cassette) : path.join(config.workspaceDir, 'cassettes', `${cassette}.jsonl`);
}
