// The audit trail's queries as the package's entry exports them: each loads the query code
// (queries.ts, session-trace.ts) on its first call, so that importing the plugin to configure
// it does not compile them. Same signatures and results as the functions they call.
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
