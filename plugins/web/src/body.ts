import type { IncomingMessage } from 'node:http';
import { OptionalShape, issueText, type Props, type Shape } from '@oryxos/schema-kit';
import { QueryInteger } from './schemas.ts';
import { webError } from './errors.ts';

/**
 * Reads a request body as text, refusing it (413) once it passes `limit` bytes: first from
 * Content-Length without reading anything, then while streaming for chunked bodies, so a
 * huge body is never buffered. Behind the Node server the body is read from Node's own
 * request (`incoming`): building a fetch `Request` and its web stream for it cost about as
 * much as a whole run with an instant model.
 */
export async function readBody(request: Request, limit: number, incoming?: IncomingMessage): Promise<string> {
  const declared = Number((incoming ? incoming.headers['content-length'] : request.headers.get('content-length')) ?? NaN);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(declared, limit);
  return decode(incoming ? await readIncoming(incoming, limit) : await readStream(request, limit));
}

async function readStream(request: Request, limit: number): Promise<Buffer> {
  if (!request.body) return Buffer.alloc(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge(size, limit, true);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

function readIncoming(incoming: IncomingMessage, limit: number): Promise<Buffer> {
  if (incoming.readableEnded) return Promise.resolve(Buffer.alloc(0));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (error?: Error) => {
      incoming.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      if (error) reject(error); else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      // The rest of the body is left to Node, which discards it once the 413 is sent.
      if (size > limit) done(tooLarge(size, limit, true));
      else chunks.push(chunk);
    };
    const onEnd = () => done();
    const onError = (error: Error) => done(error);
    const onClose = () => { if (!incoming.readableEnded) done(new Error('the client closed the connection before the body ended')); };
    incoming.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

function decode(bytes: Buffer): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    // Decoding it anyway would replace the bad bytes with U+FFFD and store mangled text.
    throw webError('ORYX_E_WEB_BAD_JSON', 'The request body is not valid UTF-8', { hint: 'Send the JSON body encoded as UTF-8.' });
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

function tooLarge(size: number, limit: number, streamed = false) {
  const what = streamed ? `over ${limit} bytes` : `${size} bytes`;
  return webError('ORYX_E_WEB_TOO_LARGE', `The request body is ${what}; the limit is ${limit} bytes`);
}

/** Parses JSON text (400 ORYX_E_WEB_BAD_JSON) and validates it against a shape. */
export function parseJson<T>(text: string, schema: Shape<T>): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw webError('ORYX_E_WEB_BAD_JSON', `The body is not valid JSON: ${(error as Error).message}`);
  }
  return check(schema, value, 'body');
}

/** Validates a value (a parsed body or the query string); 400 naming the first bad field. */
function check<T>(schema: Shape<T>, value: unknown, where: 'body' | 'query'): T {
  const found = schema.issue(value, []);
  if (found) {
    // A key the object does not take is named with those it does: `text must be removed (the body takes: message)`.
    const takes = found.known ? ` (the ${where} takes: ${found.known.join(', ')})` : '';
    throw badRequest(found.path.join('.'), `${found.path.length ? issueText(found) : found.problem}${takes}`, where);
  }
  return value as T;
}

/**
 * Validates the query string against its object shape; a parameter whose shape reads a number
 * from its text (a page size, {@link QueryInteger}) reaches the route as that number.
 */
export function checkQuery<T>(schema: Shape<T> & { readonly props: Props }, query: Record<string, string>): T {
  check(schema, query, 'query');
  const checked: Record<string, unknown> = { ...query };
  for (const [key, prop] of Object.entries(schema.props)) {
    const inner = prop instanceof OptionalShape ? prop.inner : prop;
    if (inner instanceof QueryInteger && typeof checked[key] === 'string') checked[key] = Number(checked[key]);
  }
  return checked as T;
}

/** 400 ORYX_E_WEB_BAD_REQUEST naming the field (`message` begins with it when there is one). */
function badRequest(field: string, message: string, where: 'body' | 'query') {
  return webError('ORYX_E_WEB_BAD_REQUEST', `${where === 'query' && field ? 'query parameter ' : ''}${field ? message : `${where} ${message}`}`, {
    field: field || where,
    hint: `Fix ${field ? `"${field}"` : `the ${where}`}; GET /openapi.json describes every request.`,
  });
}

/** UTF-8 size of a string, for the message limit. */
export function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
