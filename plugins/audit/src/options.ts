import { shape as s, validateOptions } from '@oryxos/schema-kit';
import type { RedactOption } from './redact.ts';

/** Options of {@link audit}. */
export interface AuditOptions {
  /**
   * Extra redaction applied before anything is written: patterns (a string is a literal
   * secret) or a function. Runs after the default patterns.
   */
  redact?: RedactOption;
  /** Apply the default secret patterns (API keys, bearer tokens). Default true. */
  redactDefaults?: boolean;
  /** Rows older than this many days are deleted at start. Default: kept forever. */
  retentionDays?: number;
  /** Tool output kept per row (the full length is recorded too). Default 8192. */
  maxOutputChars?: number;
  /** Tool input (JSON arguments) kept per row. Default 32768. */
  maxInputChars?: number;
}

export type ResolvedAuditOptions = Required<Omit<AuditOptions, 'retentionDays' | 'redact'>> & Pick<AuditOptions, 'retentionDays' | 'redact'>;

const isRedactList = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === 'string' || x instanceof RegExp);

const shape = s.object({
  redact: s.custom<RedactOption>('an array of RegExp or strings, or a function (text) => text', (v) => typeof v === 'function' || isRedactList(v)).optional(),
  redactDefaults: s.boolean().optional(),
  retentionDays: s.number({ above: 0 }).optional(),
  maxOutputChars: s.integer({ min: 0 }).optional(),
  maxInputChars: s.integer({ min: 0 }).optional(),
});

/**
 * Validates the factory's options at once; the error names the field.
 *
 * @example
 * resolveOptions({ retentionDays: 0 }); // throws ORYX_E_AUDIT_OPTIONS naming retentionDays
 */
export function resolveOptions(raw: unknown): ResolvedAuditOptions {
  const o = validateOptions(shape, raw, { plugin: 'audit', code: 'ORYX_E_AUDIT_OPTIONS', example: 'audit({ retentionDays: 30 })' }) as AuditOptions;
  return {
    redact: o.redact,
    redactDefaults: o.redactDefaults ?? true,
    retentionDays: o.retentionDays,
    maxOutputChars: o.maxOutputChars ?? 8192,
    maxInputChars: o.maxInputChars ?? 32_768,
  };
}
