/**
 * Credentials in a provider's base URL (`http://user:password@host/v1`, `OPENAI_BASE_URL` of a
 * proxy): kept out of every error message and record, and registered as secrets.
 */

const USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#@]*)@/i;

/**
 * The URL with its user name and password shown as `***`: what an error message or a log line
 * may say of it.
 *
 * @example
 * redactUrl('http://bot:s3cret@proxy.internal:8080/v1'); // 'http://***@proxy.internal:8080/v1'
 */
export function redactUrl(url: string): string {
  return url.replace(USERINFO, '$1***@');
}

/**
 * Text with the credentials of every URL in it shown as `***` (an error message that quotes the
 * URL it failed on: undici's "Request cannot be constructed from a URL that includes credentials").
 *
 * @example
 * redactUrls('fetch http://bot:s3cret@proxy/v1/chat failed'); // 'fetch http://***@proxy/v1/chat failed'
 */
export function redactUrls(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@'"]*@/gi, '$1***@');
}

/**
 * The credentials a URL carries, to register as secrets (`ctx.secrets.add`): its password, as
 * written and decoded; or its user name when there is no password (`https://TOKEN@host`, where
 * the name is the credential). Empty for a URL without them.
 *
 * @example
 * urlCredentials('http://bot:s3cr%40t@proxy/v1'); // ['s3cr%40t', 's3cr@t']
 */
export function urlCredentials(url: string | undefined): string[] {
  const info = url ? USERINFO.exec(url)?.[2] : undefined;
  if (!info) return [];
  const colon = info.indexOf(':');
  const secret = colon >= 0 ? info.slice(colon + 1) : info;
  if (!secret) return [];
  let decoded = secret;
  try { decoded = decodeURIComponent(secret); } catch { /* not percent-encoded: as written */ }
  return [...new Set([secret, decoded])];
}
