/**
 * A secret read from an environment variable when it is needed (at send time), so the config
 * never holds it and a missing variable fails only the sends that need it.
 */
export interface SecretRef {
  readonly env: string;
}

/**
 * Names the environment variable that holds a channel's password.
 *
 * @example
 * notify({ channels: [{ name: 'ops', host: 'smtp.example.com', port: 587, user: 'bot@example.com', pass: env('SMTP_PASS'), from: 'bot@example.com', to: ['me@example.com'] }] })
 */
export function env(name: string): SecretRef {
  return Object.freeze({ env: name, toJSON: () => `env(${name})`, toString: () => `env(${name})` });
}

export function isSecretRef(value: unknown): value is SecretRef {
  return !!value && typeof value === 'object' && typeof (value as SecretRef).env === 'string';
}

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
