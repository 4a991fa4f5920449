import { OryxError, isOryxError, errorMessage } from '@oryxos/provider-spec';

/**
 * The web plugin's error codes with how to fix each. The README lists the same table and
 * `test/error-codes.test.ts` keeps the two in step.
 *
 * @example
 * if (isOryxError(e) && e.code in ERROR_CODES) console.error(ERROR_CODES[e.code as WebErrorCode]);
 */
export const ERROR_CODES = {
  ORYX_E_WEB_OPTIONS: 'Fix the web() option the message names in oryx.config.ts (or the ORYX_WEB_TOKEN variable).',
  ORYX_E_WEB_NO_TOKEN: "Drop auth: 'none' from web() (a token is then required) before binding a non-loopback host, or bind 127.0.0.1.",
  ORYX_E_WEB_TOKEN_FILE: 'Fix or delete <workspace>/web-token (it must hold one token of at least 16 characters), or rotate it with `oryx web --new-token`.',
  ORYX_E_WEB_LISTEN: 'The server could not listen: pick a free port with --port, or stop what holds it.',
  ORYX_E_WEB_NOT_ENABLED: 'Add web() from @oryxos/plugin-web to `plugins` in oryx.config.ts.',
  ORYX_E_WEB_UNAUTHORIZED: 'Send the header `Authorization: Bearer <token>` with the token the server was started with (ORYX_WEB_TOKEN, or the one in <workspace>/web-token).',
  ORYX_E_WEB_BAD_HOST: 'Reach the server by IP address, localhost or the host it binds; behind a proxy or DNS name, add that name to web({ allowedHosts }).',
  ORYX_E_WEB_BAD_ORIGIN: "Web pages of other origins may not call this server: send the request from the server's own origin, or add the page's origin to web({ cors }).",
  ORYX_E_WEB_CONTENT_TYPE: 'Send the body as JSON with the header `Content-Type: application/json`.',
  ORYX_E_WEB_USER_FORBIDDEN: 'This token may act only for its own user: drop x-oryx-user (or ?user=), or use a token trusted to name users.',
  ORYX_E_WEB_BAD_JSON: 'Send a valid JSON body (Content-Type: application/json).',
  ORYX_E_WEB_BAD_REQUEST: 'Fix the field the message names; GET /openapi.json describes every request.',
  ORYX_E_WEB_TOO_LARGE: 'Send a smaller body or message, or raise maxMessageBytes (maxChatBodyBytes for /v1) in web().',
  ORYX_E_WEB_NOT_FOUND: 'Check the method and path; GET /docs lists every endpoint.',
  ORYX_E_WEB_NO_MEMORY: 'Enable the memory plugin (memory() from @oryxos/plugin-memory) in oryx.config.ts.',
  ORYX_E_WEB_TIMEOUT: 'The run took longer than invokeTimeoutMs and was aborted; raise it in web() or ask for less per message.',
  ORYX_E_WEB_SHUTTING_DOWN: 'The server is shutting down; retry against another instance or after it restarts.',
  ORYX_E_WEB_SESSION_DELETED: 'The session was deleted (DELETE /api/sessions/:id) while this run was going on; start a new session to go on.',
  ORYX_E_WEB_STOPPED: 'The run was stopped on request (POST /api/sessions/:id/stop); the session keeps every step committed before that, so send the next message when ready.',
  ORYX_E_WEB_NO_AUDIT: 'Enable the audit plugin (audit() from @oryxos/plugin-audit) in oryx.config.ts: the run timeline is read from its trail.',
  ORYX_E_WEB_NO_APPROVALS: 'Enable the approvals plugin (approvals() from @oryxos/plugin-approvals) in oryx.config.ts; it keeps its table in the database the sqlite or postgres plugin opens.',
  ORYX_E_WEB_NO_CONSOLE: 'The web console is not built: run `npm run build` in the OryxOS checkout (or reinstall @oryxos/plugin-web), or turn it off with web({ console: false }).',
  ORYX_E_WEB_INTERNAL: 'An unexpected server error; the log line with the same request id has the details.',
} as const;

export type WebErrorCode = keyof typeof ERROR_CODES;

/** The HTTP status of each web code; kernel codes are mapped in {@link statusOf}. */
const STATUS: Record<WebErrorCode, number> = {
  ORYX_E_WEB_OPTIONS: 500,
  ORYX_E_WEB_NO_TOKEN: 500,
  ORYX_E_WEB_TOKEN_FILE: 500,
  ORYX_E_WEB_LISTEN: 500,
  ORYX_E_WEB_NOT_ENABLED: 500,
  ORYX_E_WEB_UNAUTHORIZED: 401,
  ORYX_E_WEB_BAD_HOST: 421,
  ORYX_E_WEB_BAD_ORIGIN: 403,
  ORYX_E_WEB_CONTENT_TYPE: 415,
  ORYX_E_WEB_USER_FORBIDDEN: 403,
  ORYX_E_WEB_BAD_JSON: 400,
  ORYX_E_WEB_BAD_REQUEST: 400,
  ORYX_E_WEB_TOO_LARGE: 413,
  ORYX_E_WEB_NOT_FOUND: 404,
  ORYX_E_WEB_NO_MEMORY: 404,
  ORYX_E_WEB_TIMEOUT: 504,
  ORYX_E_WEB_SHUTTING_DOWN: 503,
  ORYX_E_WEB_SESSION_DELETED: 410,
  ORYX_E_WEB_STOPPED: 409,
  ORYX_E_WEB_NO_AUDIT: 404,
  ORYX_E_WEB_NO_APPROVALS: 404,
  ORYX_E_WEB_NO_CONSOLE: 503,
  ORYX_E_WEB_INTERNAL: 500,
};

const KERNEL_STATUS: Record<string, number> = {
  ORYX_E_AGENT_NOT_FOUND: 404,
  ORYX_E_SESSION_NOT_FOUND: 404,
  ORYX_E_SESSION_AGENT_MISMATCH: 409,
  ORYX_E_APPROVAL_WAITING: 409,
  ORYX_E_APPROVAL_NOT_RESUMABLE: 409,
  ORYX_E_LLM_FAILED: 502,
  // nginx's "client closed request": nobody reads it, but the log line says what happened.
  ORYX_E_RUN_ABORTED: 499,
};

/**
 * Session store codes that are not server failures: another process runs the session (409),
 * the session went away under a run (410), the database is locked for now (503) or full (507).
 */
const STORE_STATUS: Record<string, number> = {
  ORYX_E_SQLITE_SESSION_BUSY: 409,
  ORYX_E_SQLITE_SESSION_EXISTS: 409,
  ORYX_E_SQLITE_SESSION_NOT_FOUND: 410,
  ORYX_E_SQLITE_BAD_CURSOR: 400,
  ORYX_E_SQLITE_BUSY: 503,
  ORYX_E_SQLITE_FULL: 507,
  ORYX_E_APPROVAL_NOT_FOUND: 404,
  ORYX_E_APPROVAL_DECIDED: 409,
  ORYX_E_APPROVAL_EXPIRED: 409,
};

/** Creates an OryxError carrying a web code, with the table's hint unless one is given. */
export function webError(code: WebErrorCode, message: string, options: { hint?: string; field?: string; cause?: unknown } = {}): OryxError {
  return new OryxError(code, message, {
    hint: options.hint ?? ERROR_CODES[code],
    cause: options.cause,
    data: options.field ? { field: options.field } : undefined,
  });
}

/** The HTTP status an error answers with. */
export function statusOf(error: OryxError): number {
  return STATUS[error.code as WebErrorCode] ?? KERNEL_STATUS[error.code] ?? STORE_STATUS[error.code] ?? (error.code.startsWith('ORYX_E_LLM') ? 502 : 500);
}

/** The JSON error body: `{error: {code, message, hint}}`; `hint` is always present. */
export interface ErrorBody {
  error: { code: string; message: string; hint: string; type?: string; param?: string | null };
}

/** Any thrown value as an OryxError (unknown ones become ORYX_E_WEB_INTERNAL). */
export function asOryxError(error: unknown): OryxError {
  if (isOryxError(error)) return error;
  return webError('ORYX_E_WEB_INTERNAL', `Internal error: ${errorMessage(error)}`, { cause: error });
}

const OPENAI_TYPES: Record<number, string> = {
  400: 'invalid_request_error', 401: 'authentication_error', 403: 'permission_error', 404: 'invalid_request_error', 409: 'invalid_request_error',
  410: 'invalid_request_error', 413: 'invalid_request_error', 415: 'invalid_request_error', 421: 'invalid_request_error',
  502: 'api_error', 503: 'api_error', 504: 'timeout_error',
};

/**
 * The body for an error. With `openai`, the OpenAI error fields `type` and `param` are added
 * so OpenAI clients raise their usual exception classes; `code`, `message` and `hint` stay.
 */
export function errorBody(error: OryxError, options: { openai?: boolean } = {}): ErrorBody {
  const hint = error.hint ?? (ERROR_CODES as Record<string, string>)[error.code] ?? ERROR_CODES.ORYX_E_WEB_INTERNAL;
  const body: ErrorBody = { error: { code: error.code, message: error.message, hint } };
  if (options.openai) {
    body.error.type = OPENAI_TYPES[statusOf(error)] ?? 'server_error';
    body.error.param = typeof error.data?.field === 'string' ? error.data.field : null;
  }
  return body;
}
