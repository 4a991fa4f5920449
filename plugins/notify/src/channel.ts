import type { ChannelInfo } from '@oryxos/contracts';
import { definedOptions, shape as s } from '@oryxos/schema-kit';
import { notifyError } from './errors.ts';
import { isSecretRef, type SecretRef } from './secret.ts';

/**
 * An SMTP channel as declared in `notify({ channels })`. The password is `env('VAR')` (read at
 * send time) or, discouraged, a string in the config.
 *
 * @example
 * { name: 'ops', host: 'smtp.example.com', port: 587, user: 'bot@example.com', pass: env('SMTP_PASS'), from: 'bot@example.com', to: ['me@example.com'] }
 */
export interface ChannelInput {
  name: string;
  host: string;
  port: number;
  /** Implicit TLS from the first byte (port 465). Default false: STARTTLS when the server offers it. */
  secure?: boolean;
  /** Refuse to send unless the server upgrades to TLS with STARTTLS. Default false. */
  requireTLS?: boolean;
  user?: string;
  pass?: string | SecretRef;
  from: string;
  to: string | string[];
}

/** A channel added at run time (`oryx notify add`): its password only ever as the name of a variable. */
export interface RuntimeChannelInput extends Omit<ChannelInput, 'pass'> {
  passEnv?: string;
}

/** A validated channel. */
export interface Channel {
  name: string;
  host: string;
  port: number;
  secure: boolean;
  requireTLS: boolean;
  user?: string;
  pass?: { env: string } | { value: string };
  from: string;
  to: string[];
  source: 'config' | 'runtime';
}

/** A channel as `oryx notify channels` shows it (the contract's): never the password, only where it comes from. */
export type { ChannelInfo };

export const CHANNEL_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const ADDRESS = /^[^\s@<>",;]+@[^\s@<>",;]+$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export const channelShape = s.object({
  name: s.string(),
  host: s.string(),
  port: s.integer(),
  secure: s.boolean().optional(),
  requireTLS: s.boolean().optional(),
  user: s.string().optional(),
  pass: s.union(s.string(), s.object({ env: s.string() }, { unknownKeys: 'ignore' })).optional(),
  passEnv: s.string().optional(),
  from: s.string(),
  to: s.union(s.string(), s.array(s.string())),
});

/** `Name <addr@host>` or `addr@host`. */
export function isAddress(value: string): boolean {
  const m = /^[^<>]*<([^<>]+)>$/.exec(value.trim());
  return ADDRESS.test((m ? m[1]! : value).trim());
}

/**
 * Checks a channel (from the config, or at run time with `passEnv`); ORYX_E_NOTIFY_BAD_CHANNEL
 * names the field.
 *
 * @example
 * parseChannel({ name: 'ops', host: 'smtp.example.com', port: 587, from: 'a@example.com', to: 'b@example.com' }, 'runtime');
 */
export function parseChannel(raw: unknown, source: Channel['source'], where = 'channel'): Channel {
  const input = raw && typeof raw === 'object' && !isSecretRef(raw) ? definedOptions(raw) : raw;
  const named = input && typeof (input as { name?: unknown }).name === 'string' ? `${where} "${(input as { name: string }).name}"` : where;
  const bad = (field: string, message: string) => notifyError('ORYX_E_NOTIFY_BAD_CHANNEL', `${named}: ${field} ${message}`, { data: { field } });
  const found = s.check(channelShape, input);
  if (found) {
    const known = found.problem === 'must be removed' ? ` (known fields: ${channelShape.keys.join(', ')})` : '';
    throw bad(found.path.join('.') || '(channel)', `${found.problem}${known}`);
  }
  const c = input as RuntimeChannelInput & { pass?: string | SecretRef };
  if (!CHANNEL_NAME.test(c.name)) throw bad('name', `${JSON.stringify(c.name)} must be 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit`);
  if (!c.host.trim() || /[\s/@]/.test(c.host.trim())) throw bad('host', `${JSON.stringify(c.host)} must be a host name or IP address`);
  if (c.port < 1 || c.port > 65535) throw bad('port', `${c.port} must be between 1 and 65535`);
  if (!isAddress(c.from)) throw bad('from', `${JSON.stringify(c.from)} is not an email address`);
  const to = (Array.isArray(c.to) ? c.to : c.to.split(',')).map((a) => a.trim()).filter(Boolean);
  if (!to.length) throw bad('to', 'must list at least one address');
  for (const a of to) if (!isAddress(a)) throw bad('to', `${JSON.stringify(a)} is not an email address`);
  if (source === 'runtime' && c.pass !== undefined) throw bad('pass', 'cannot be stored: give passEnv, the name of the environment variable that holds the password');
  if (source === 'config' && c.passEnv !== undefined) throw bad('passEnv', "is for channels added at run time: in oryx.config.ts write pass: env('VAR')");
  let pass: Channel['pass'];
  if (c.passEnv !== undefined || isSecretRef(c.pass)) {
    const name = c.passEnv ?? (c.pass as SecretRef).env;
    if (!ENV_NAME.test(name)) throw bad(c.passEnv !== undefined ? 'passEnv' : 'pass', `${JSON.stringify(name)} is not an environment variable name`);
    pass = { env: name };
  } else if (typeof c.pass === 'string') {
    if (!c.pass) throw bad('pass', 'is empty');
    pass = { value: c.pass };
  }
  const user = c.user?.trim() || undefined;
  if (pass && !user) throw bad('user', 'is missing: a password needs a user name');
  if (user && !pass) throw bad(source === 'runtime' ? 'passEnv' : 'pass', 'is missing: a user name needs a password');
  return {
    name: c.name, host: c.host.trim(), port: c.port, secure: c.secure ?? false, requireTLS: c.requireTLS ?? false,
    ...(user ? { user } : {}), ...(pass ? { pass } : {}), from: c.from.trim(), to, source,
  };
}

/** The channel without its password. */
export function channelInfo(c: Channel): ChannelInfo {
  const password = !c.pass ? 'none' : 'env' in c.pass ? `env ${c.pass.env}` : 'set in oryx.config.ts';
  return {
    name: c.name, host: c.host, port: c.port, secure: c.secure, requireTLS: c.requireTLS, ...(c.user ? { user: c.user } : {}),
    password, from: c.from, to: c.to, source: c.source,
  };
}
