// What the audit plugin loads on first use (plugin.ts): the recorder and its redactor with the
// first row to write, the session trace with the first read of it.
export { AuditRecorder } from './recorder.ts';
export { createRedactor } from './redact.ts';
export { sessionTrace } from './session-trace.ts';
export { callMessages } from './call-messages.ts';
