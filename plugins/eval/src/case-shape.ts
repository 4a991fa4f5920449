import { shape as s } from '@oryxos/schema-kit';

/**
 * The keys of a case file, as written (snake_case, like AGENT.md frontmatter), checked by shape
 * first; what a shape cannot say (a regular expression that compiles, a known stop reason, a
 * JSON Schema, a fixture inside the project) is checked after, in `case-file.ts`. The README's
 * key tables list the same keys; a test keeps them in step.
 */

const text = s.string({ min: 1 });
const texts = s.union(text, s.array(text));
const count = s.integer({ min: 0 });

/** `tools_called` entries: a tool name, or the name with what its calls must look like. */
export const toolCallShape = s.object({
  name: text,
  args: s.record(s.unknown()).optional(),
  args_match: s.record(text).optional(),
  min: count.optional(),
  max: count.optional(),
});

/** `denied` entries: a tool name, or the tool and what the reason must say. */
export const denialShape = s.object({
  tool: text.optional(),
  reason_contains: text.optional(),
  reason_matches: text.optional(),
});

/** `expect:` of a case. */
export const expectShape = s.object({
  answer_contains: texts.optional(),
  answer_not_contains: texts.optional(),
  answer_matches: texts.optional(),
  answer_equals: s.string().optional(),
  answer_json: s.union(s.literal(true), s.record(s.unknown())).optional(),
  tools_called: s.array(s.union(text, toolCallShape)).optional(),
  tools_not_called: s.array(text).optional(),
  no_denials: s.boolean().optional(),
  denied: s.array(s.union(text, denialShape)).optional(),
  stop_reason: text.optional(),
  max_steps: count.optional(),
  max_tokens: count.optional(),
  max_duration_ms: count.optional(),
  llm_rubric: texts.optional(),
});

/** A fixture: the file's text, or `{ from }`, a file or folder beside the case file to copy. */
export const fixtureShape = s.union(s.string(), s.object({ from: text }));

/** One case. */
export const caseShape = s.object({
  name: text,
  input: texts,
  expect: expectShape,
  description: s.string().optional(),
  agent: s.string({ min: 1, pattern: /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/ }).optional(),
  fixtures: s.record(fixtureShape).optional(),
  skip: s.union(s.boolean(), text).optional(),
  min_pass_rate: s.number({ min: 0, max: 1 }).optional(),
});

/** Every key a case (and its `expect:`) may have, for the README test. */
export const CASE_KEYS: readonly string[] = caseShape.keys;
export const EXPECT_KEYS: readonly string[] = expectShape.keys;
