/**
 * A channel's password read from an environment variable when it is needed (at send time), so
 * the config never holds it and a missing variable fails only the sends that need it. The
 * reference is plugin-kit's `env()`: the value it names is registered as a secret when read.
 */
import { env as kitEnv, isEnvRef, type EnvRef } from '@oryxos/plugin-kit';

/** A password named by its environment variable: plugin-kit's `EnvRef`. */
export type SecretRef = EnvRef;

/**
 * Names the environment variable that holds a channel's password; its value is masked as `***`
 * wherever OryxOS writes (CLI output, stored messages, tool results, the audit trail).
 *
 * @example
 * notify({ channels: [{ name: 'ops', host: 'smtp.example.com', port: 587, user: 'bot@example.com', pass: env('SMTP_PASS'), from: 'bot@example.com', to: ['me@example.com'] }] })
 */
export function env(name: string): SecretRef {
  return kitEnv(name);
}

export const isSecretRef: (value: unknown) => value is SecretRef = isEnvRef;

/**
 * Replaces every form of the password a log or error could carry (as is, and base64 as in
 * AUTH PLAIN and LOGIN) with `[REDACTED]`.
 */
export function scrubber(user: string | undefined, pass: string | undefined): (text: string) => string {
  if (!pass) return (text) => text;
  const forms = [
    pass,
    Buffer.from(pass).toString('base64'),
    Buffer.from(`\0${user ?? ''}\0${pass}`).toString('base64'),
    Buffer.from(`${user ?? ''}\0${user ?? ''}\0${pass}`).toString('base64'),
  ].filter((f) => f.length >= 4).sort((a, b) => b.length - a.length);
  return (text) => forms.reduce((t, f) => t.split(f).join('[REDACTED]'), text);
}
