// The audit trail's queries and its redactor as the package's main entry exports them: each
// loads its code (queries.ts, session-trace.ts, redact.ts) on its first call, so that importing
// the plugin to configure it does not compile them. Same signatures and results as the functions
// they call; `@oryxos/plugin-audit/trail` exports those directly.
import type { Redactor } from './redact.ts';

type Queries = typeof import('./queries.ts');
type Trace = typeof import('./session-trace.ts');
let queries: Promise<Queries> | undefined;
let trace: Promise<Trace> | undefined;
const q = () => (queries ??= import('./queries.ts'));

/** The newest `llm_calls` rows first (`filter.session` matches an id or a prefix of one). */
export const listLlmCalls: Queries['listLlmCalls'] = async (...a) => (await q()).listLlmCalls(...a);
/** One `llm_calls` row by id. */
export const getLlmCall: Queries['getLlmCall'] = async (...a) => (await q()).getLlmCall(...a);
/** The newest `tool_invocations` rows first. */
export const listToolInvocations: Queries['listToolInvocations'] = async (...a) => (await q()).listToolInvocations(...a);
/** The approval decisions of these tool calls, keyed by `approvalKey` (calls nobody was asked about are absent). */
export const approvalsOf: Queries['approvalsOf'] = async (...a) => (await q()).approvalsOf(...a);
/** The newest `sandbox_events` rows first: denials that were not tool calls and connections of confined processes. */
export const listSandboxEvents: Queries['listSandboxEvents'] = async (...a) => (await q()).listSandboxEvents(...a);
/** One row per session: calls, tokens, failures, tool errors and denials; most recent first. */
export const summarize: Queries['summarize'] = async (...a) => (await q()).summarize(...a);
/** The audit rows of a session's last `runs` runs (default 20, at most 100), each table oldest first. */
export const sessionTrace: Trace['sessionTrace'] = async (...a) => (await (trace ??= import('./session-trace.ts'))).sessionTrace(...a);

/**
 * The redactor the audit applies (see `createRedactor` of `@oryxos/plugin-audit/trail`), its
 * code and patterns loaded with the first text it redacts.
 *
 * @example
 * const redact = createRedactor({ redact: [/internal-\d+/, 'hunter2'] });
 * await redact('DB_PASSWORD=hunter2hunter2 and internal-42'); // 'DB_PASSWORD=[REDACTED] and [REDACTED]'
 */
export function createRedactor(...options: Parameters<typeof import('./redact.ts').createRedactor>): Redactor {
  let redactor: Redactor | undefined;
  const load = async () => (redactor ??= (await import('./redact.ts')).createRedactor(...options));
  const all = async (texts: string[]) => {
    const r = redactor ?? await load();
    return r.all ? r.all(texts) : Promise.all(texts.map((text) => r(text)));
  };
  return Object.assign(async (text: string) => (redactor ?? await load())(text), { all });
}
