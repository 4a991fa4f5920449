import { errorMessage, isOryxError, type OryxError } from '@oryxos/provider-spec';
import { pgError, type PgErrorCode } from './errors.ts';

interface DriverError { code?: unknown; severity?: unknown; constraint_name?: unknown; detail?: unknown; errno?: unknown; address?: unknown; port?: unknown }

/** Network failures: the statement's fate is unknown to the client, but nothing uncommitted survives on the server. */
const NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN',
  'CONNECT_TIMEOUT', 'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED']);

/** The SQLSTATE of a server error (`23505`), or undefined for anything else. */
export function sqlStateOf(error: unknown): string | undefined {
  const e = error as DriverError | undefined;
  return typeof e?.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) && typeof e.severity === 'string' ? e.code : undefined;
}

/** The error code for a SQLSTATE: its class says what the user can do. */
function codeFor(state: string | undefined, driverCode: unknown): PgErrorCode {
  if (typeof driverCode === 'string' && NETWORK.has(driverCode)) return 'ORYX_E_PG_UNAVAILABLE';
  if (!state) return 'ORYX_E_PG_QUERY';
  if (state === '57014') return 'ORYX_E_PG_TIMEOUT'; // query_canceled: statement_timeout
  if (state === '40001' || state === '40P01' || state === '55P03') return 'ORYX_E_PG_CONFLICT'; // serialization, deadlock, lock_not_available
  if (state === '25006') return 'ORYX_E_PG_READONLY';
  if (state.startsWith('08') || state === '57P01' || state === '57P02' || state === '57P03' || state === '53300') return 'ORYX_E_PG_UNAVAILABLE';
  return 'ORYX_E_PG_QUERY';
}

/**
 * Wraps a driver error in an OryxError naming the SQLSTATE and the statement. A unique
 * violation keeps its constraint in `data.constraint`, for callers that retry on one.
 */
export function queryFailure(error: unknown, sql: string, shown: string): OryxError {
  if (isOryxError(error)) return error;
  const e = error as DriverError;
  const state = sqlStateOf(error);
  const code = codeFor(state, e?.code);
  const statement = sql.replace(/\s+/g, ' ').trim().slice(0, 160);
  const where = code === 'ORYX_E_PG_UNAVAILABLE' ? `the database ${shown} ${networkReason(error)}` : errorMessage(error);
  return pgError(code, `${where}${state ? ` (SQLSTATE ${state})` : ''} in: ${statement}`, {
    cause: error,
    retryable: code === 'ORYX_E_PG_UNAVAILABLE' || code === 'ORYX_E_PG_CONFLICT',
    data: {
      sql: statement,
      ...(state ? { pgCode: state } : {}),
      ...(typeof e?.constraint_name === 'string' ? { constraint: e.constraint_name } : {}),
    },
  });
}

/** A failure to connect to `shown` (the URL without its password): refused, unknown host, bad password, no such database. */
export function connectFailure(error: unknown, shown: string): OryxError {
  if (isOryxError(error)) return error;
  const state = sqlStateOf(error);
  const reason = state === '28P01' || state === '28000' ? `authentication failed (${errorMessage(error)})`
    : state === '3D000' ? errorMessage(error)
      : NETWORK.has(String((error as DriverError)?.code)) ? networkReason(error) : errorMessage(error);
  return pgError('ORYX_E_PG_CONNECT', `Could not connect to the database ${shown}: ${reason}${state ? ` (SQLSTATE ${state})` : ''}`, {
    cause: error, retryable: !state, data: { url: shown, ...(state ? { pgCode: state } : {}) },
  });
}

function networkReason(error: unknown): string {
  const code = String((error as DriverError)?.code ?? '');
  switch (code) {
    case 'ECONNREFUSED': return 'refused the connection (is the server running and listening on that host and port?)';
    case 'ENOTFOUND': case 'EAI_AGAIN': return 'has a host name that does not resolve';
    case 'CONNECT_TIMEOUT': case 'ETIMEDOUT': return 'did not answer in time (a firewall, a dropped network, or a server that is down)';
    case 'ECONNRESET': case 'EPIPE': case 'CONNECTION_CLOSED': case 'CONNECTION_DESTROYED':
      return 'closed the connection (the server restarted, or the network dropped it)';
    default: return `is unavailable: ${errorMessage(error)}`;
  }
}
