/**
 * The packages `oryx plugins new NAME --kind tool|provider|channel` writes: a plugin that
 * works as written (source, README with its option and error-code tables, a uvu test on
 * `@oryxos/kernel/testing` that passes), ready for `oryx plugins link`.
 */

/** What a new plugin is. */
export type PluginKind = 'tool' | 'provider' | 'channel';

/** Where the OryxOS packages the new plugin builds on are (`file:` specs to this installation, or version ranges). */
export interface TemplateDeps { kernel: string; pluginKit: string; providerKit: string; providerSpec: string; contracts: string }

interface Names { name: string; pkg: string; factory: string; tool: string; service: string; area: string; env: string }

function names(name: string): Names {
  const camel = name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
  return { name, pkg: `oryx-plugin-${name}`, factory: camel, tool: name.replace(/-/g, '_'), service: camel, area: name.replace(/-/g, '_').toUpperCase(), env: `${name.replace(/-/g, '_').toUpperCase()}_API_KEY` };
}

const tsconfig = `{
  "compilerOptions": {
    "target": "ES2023", "lib": ["ES2023"], "module": "NodeNext", "moduleResolution": "NodeNext",
    "strict": true, "declaration": true, "skipLibCheck": true, "types": ["node"],
    "allowImportingTsExtensions": true, "rewriteRelativeImportExtensions": true, "verbatimModuleSyntax": true,
    "rootDir": "src", "outDir": "dist"
  },
  "include": ["src"]
}
`;

function packageJson(n: Names, kind: PluginKind, deps: TemplateDeps, permissions: string[], description: string): string {
  // A provider is written against the provider spec with its kit; a channel declares its service in the contracts.
  const kit: Record<string, string> = kind === 'provider' ? { '@oryxos/provider-kit': deps.providerKit, '@oryxos/provider-spec': deps.providerSpec }
    : kind === 'channel' ? { '@oryxos/plugin-kit': deps.pluginKit, '@oryxos/contracts': deps.contracts } : { '@oryxos/plugin-kit': deps.pluginKit };
  const ranges: Record<string, string> = { '@oryxos/provider-spec': '^1.0.0', '@oryxos/contracts': '^1.0.0' };
  return `${JSON.stringify({
    name: n.pkg, version: '0.1.0', description, type: 'module', license: 'MIT',
    exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' }, './package.json': './package.json' },
    main: './dist/index.js', types: './dist/index.d.ts', files: ['dist', 'README.md'], engines: { node: '>=20.19' },
    // An OryxOS plugin (the factory and the kernel range it was built for) and an oclif plugin (commands, if it ever brings some).
    oryx: { plugin: './dist/index.js', kernel: '^1', permissions },
    oclif: {},
    scripts: { build: 'tsc -p tsconfig.json', test: `tsx test/${n.name}.test.ts` },
    // The OryxOS installation provides these to the plugin at run time.
    peerDependencies: { '@oryxos/kernel': '^1.0.0', ...Object.fromEntries(Object.keys(kit).map((k) => [k, ranges[k] ?? '^0.1.0'])) },
    devDependencies: { '@oryxos/kernel': deps.kernel, ...kit, '@types/node': '^20.19.0', tsx: '4.23.14', typescript: '~5.9.0', uvu: '^0.5.6' },
  }, null, 2)}\n`;
}

const errorsTs = (n: Names, codes: Record<string, string>) => `/** This package's error codes with how to fix each; the README lists the same (a test checks). */
export const ERROR_CODES = {
${Object.entries(codes).map(([code, fix]) => `  ${code}: ${JSON.stringify(fix)},`).join('\n')}
} as const;
`;

const errorTable = (codes: Record<string, string>) => `## Error codes

| code | how to fix |
| --- | --- |
${Object.entries(codes).map(([code, fix]) => `| \`${code}\` | ${fix} |`).join('\n')}
`;

const readmeTest = (n: Names) => `
test('the README lists exactly ERROR_CODES, each with its fix', () => {
  assert.equal(readmeErrorCodes(readFileSync(new URL('../README.md', import.meta.url), 'utf8')), { ...ERROR_CODES });
});
`;

function tool(n: Names): Record<string, string> {
  const codes = {
    [`ORYX_E_${n.area}_OPTIONS`]: `Fix the option the message names in ${n.factory}({...}) in oryx.config.ts.`,
    [`ORYX_E_${n.area}_TOO_LONG`]: `Send a shorter text, or raise maxChars in ${n.factory}({ maxChars }).`,
  };
  return {
    'src/errors.ts': errorsTs(n, codes),
    'src/index.ts': `import { pluginPackage, type Plugin } from '@oryxos/kernel';
import { OryxError, defineTool, shape as s, validateOptions } from '@oryxos/plugin-kit';
import { ERROR_CODES } from './errors.ts';

export { ERROR_CODES } from './errors.ts';

/** Options of {@link ${n.factory}}. */
export interface ${cap(n.factory)}Options {
  /** The longest text the tool counts, in characters. Default 100000. */
  maxChars?: number;
}

const optionsShape = s.object({ maxChars: s.integer({ above: 0 }).optional() });

/**
 * Adds the \`${n.tool}\` tool: the words, lines and characters of a text.
 *
 * @example
 * // oryx.config.ts
 * import ${n.factory} from '${n.pkg}';
 * export default defineConfig({ plugins: [${n.factory}({ maxChars: 50_000 })] });
 */
export default function ${n.factory}(options: ${cap(n.factory)}Options = {}): Plugin {
  const opts = validateOptions(optionsShape, options, { plugin: '${n.factory}', code: 'ORYX_E_${n.area}_OPTIONS', example: '${n.factory}({ maxChars: 50000 })' });
  const maxChars = opts.maxChars ?? 100_000;
  return {
    ...pluginPackage(import.meta.url),
    name: '${n.name}',
    options: opts,
    setup(ctx) {
      ctx.registerTool(defineTool({
        name: '${n.tool}',
        description: 'Counts the words, lines and characters of a text.',
        args: s.object({ text: s.string() }),
        describe: { text: 'The text to count' },
        async execute({ text }) {
          if (text.length > maxChars) {
            throw new OryxError('ORYX_E_${n.area}_TOO_LONG', \`the text has \${text.length} characters, more than maxChars (\${maxChars})\`, { hint: ERROR_CODES.ORYX_E_${n.area}_TOO_LONG });
          }
          const words = text.split(/\\s+/).filter(Boolean).length;
          return JSON.stringify({ words, lines: text ? text.split('\\n').length : 0, characters: text.length });
        },
      }));
    },
  };
}
`,
    [`test/${n.name}.test.ts`]: `import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isOryxError } from '@oryxos/plugin-kit';
import { readmeErrorCodes, scripted, testKernel } from '@oryxos/kernel/testing';
import ${n.factory}, { ERROR_CODES } from '../src/index.ts';

test('the ${n.tool} tool counts a text in a real run; the model sees the result', async () => {
  const llm = scripted([{ toolCalls: [{ name: '${n.tool}', args: { text: 'one two\\nthree' } }] }, { text: 'three words' }]);
  const t = await testKernel({ plugins: [llm, ${n.factory}()] });
  try {
    const r = await t.service.process({ agent: 'assistant', message: 'count' });
    assert.is(r.answer, 'three words');
    assert.is(llm.requests[1]!.messages.at(-1)!.content, '{"words":3,"lines":2,"characters":13}');
  } finally { await t.close(); }
});

test('a text over maxChars is an error result naming the limit; the run goes on', async () => {
  const llm = scripted([{ toolCalls: [{ name: '${n.tool}', args: { text: 'x'.repeat(11) } }] }, { text: 'too long' }]);
  const t = await testKernel({ plugins: [llm, ${n.factory}({ maxChars: 10 })] });
  try {
    const r = await t.service.process({ agent: 'assistant', message: 'count' });
    assert.is(r.stopReason, 'final');
    assert.match(llm.requests[1]!.messages.at(-1)!.content, 'more than maxChars (10)');
  } finally { await t.close(); }
});

test('options are checked when the factory is called, naming the option', () => {
  try { ${n.factory}({ maxChars: 0 }); assert.unreachable(); } catch (e) {
    assert.ok(isOryxError(e) && e.code === 'ORYX_E_${n.area}_OPTIONS');
    assert.match((e as Error).message, 'maxChars');
  }
});
${readmeTest(n)}
test.run();
`,
    'README.md': `# ${n.pkg}

An OryxOS plugin that adds the \`${n.tool}\` tool: the words, lines and characters of a text.

\`\`\`ts
// oryx.config.ts
import ${n.factory} from '${n.pkg}';
export default defineConfig({ plugins: [/* … */, ${n.factory}()] });
\`\`\`

Allow the tool in an agent's \`tools:\` (AGENT.md) to let it call it.

## Options

| option | default | what |
| --- | --- | --- |
| \`maxChars\` | 100000 | The longest text the tool counts. |

${errorTable(codes)}`,
  };
}

function channel(n: Names): Record<string, string> {
  const codes = {
    [`ORYX_E_${n.area}_OPTIONS`]: `Fix the option the message names in ${n.factory}({...}) in oryx.config.ts.`,
    [`ORYX_E_${n.area}_WRITE`]: 'Allow the file in the sandbox: sandbox({ files: { write: [...] } }) in oryx.config.ts.',
  };
  return {
    'src/errors.ts': errorsTs(n, codes),
    'src/index.ts': `import { appendFile, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { STAGE, pluginPackage, type Plugin } from '@oryxos/kernel';
import { OryxError, enforceAction, errorMessage, shape as s, validateOptions } from '@oryxos/plugin-kit';
import { ERROR_CODES } from './errors.ts';

export { ERROR_CODES } from './errors.ts';

/** One finished run, as the journal keeps it. */
export interface JournalEntry { at: string; agent: string; sessionId: string; stopReason: string; answer: string }

/** The \`${n.service}\` service: what the channel delivered. */
export interface Journal {
  readonly file: string;
  entries(): Promise<JournalEntry[]>;
}

declare module '@oryxos/contracts' {
  interface Services { ${n.service}: Journal }
}

/** Options of {@link ${n.factory}}. */
export interface ${cap(n.factory)}Options {
  /** The JSON Lines file, relative to the folder of oryx.config.ts. Default \`.oryxos/${n.name}.jsonl\`. */
  file?: string;
}

const optionsShape = s.object({ file: s.string({ min: 1 }).optional() });

/**
 * A channel: every finished run (its agent, session, stop reason and answer) is delivered to a
 * JSON Lines file, written through the sandbox. Provides the \`${n.service}\` service to read it.
 *
 * @example
 * // oryx.config.ts
 * import ${n.factory} from '${n.pkg}';
 * export default defineConfig({ plugins: [sandbox({ files: { write: ['.oryxos/${n.name}.jsonl'] } }), ${n.factory}()] });
 */
export default function ${n.factory}(options: ${cap(n.factory)}Options = {}): Plugin {
  const opts = validateOptions(optionsShape, options, { plugin: '${n.factory}', code: 'ORYX_E_${n.area}_OPTIONS', example: "${n.factory}({ file: 'runs.jsonl' })" });
  return {
    ...pluginPackage(import.meta.url),
    name: '${n.name}',
    provides: ['${n.service}'],
    options: opts,
    setup(ctx) {
      const file = path.resolve(ctx.config.root, opts.file ?? path.join(path.relative(ctx.config.root, ctx.config.workspaceDir), '${n.name}.jsonl'));
      ctx.provide('${n.service}', {
        file,
        async entries() {
          const text = await readFile(file, 'utf8').catch(() => '');
          return text.split('\\n').filter(Boolean).map((line) => JSON.parse(line) as JournalEntry);
        },
      });
      // An observer: after every other afterRun tap. A failed delivery is a warning, never the run's error.
      ctx.hooks.afterRun.tapPromise({ stage: STAGE.OBSERVE }, async (result, run) => {
        const entry: JournalEntry = { at: new Date().toISOString(), agent: run.agent.name, sessionId: result.sessionId, stopReason: result.stopReason, answer: result.answer };
        try {
          await enforceAction(ctx, { kind: 'file', op: 'write', path: file }, { run, origin: 'channel ${n.name}' });
          await mkdir(path.dirname(file), { recursive: true });
          await appendFile(file, \`\${JSON.stringify(entry)}\\n\`);
        } catch (error) {
          const e = new OryxError('ORYX_E_${n.area}_WRITE', \`could not deliver the run of session \${result.sessionId} to \${file}: \${errorMessage(error)}\`, { cause: error, hint: ERROR_CODES.ORYX_E_${n.area}_WRITE });
          ctx.log.warn(\`\${e.code} \${e.message}\`);
        }
      });
    },
  };
}
`,
    [`test/${n.name}.test.ts`]: `import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { allowAll, readmeErrorCodes, scripted, testKernel } from '@oryxos/kernel/testing';
import ${n.factory}, { ERROR_CODES } from '../src/index.ts';

test('every finished run is delivered to the journal file, readable through the service', async () => {
  const t = await testKernel({ plugins: [scripted([{ text: 'first answer' }, { text: 'second answer' }]), allowAll(), ${n.factory}()] });
  try {
    const a = await t.service.process({ agent: 'assistant', message: 'one' });
    await t.service.process({ agent: 'assistant', message: 'two', session: a.sessionId });
    const entries = await t.kernel.service('${n.service}').entries();
    assert.equal(entries.map((e) => [e.agent, e.sessionId, e.stopReason, e.answer]), [
      ['assistant', a.sessionId, 'final', 'first answer'], ['assistant', a.sessionId, 'final', 'second answer'],
    ]);
    assert.match(readFileSync(t.kernel.service('${n.service}').file, 'utf8'), '"answer":"second answer"');
  } finally { await t.close(); }
});

test('a write the sandbox denies is a warning naming the code; the run still succeeds and nothing is written', async () => {
  const t = await testKernel({ plugins: [scripted([{ text: 'kept' }]), ${n.factory}()] }); // no sandbox plugin: every action is denied
  try {
    const r = await t.service.process({ agent: 'assistant', message: 'go' });
    assert.is(r.answer, 'kept');
    assert.equal(await t.kernel.service('${n.service}').entries(), []);
    assert.ok(t.warnings.some((w) => w.startsWith('${n.name}: ORYX_E_${n.area}_WRITE')), t.warnings.join('\\n'));
  } finally { await t.close(); }
});
${readmeTest(n)}
test.run();
`,
    'README.md': `# ${n.pkg}

An OryxOS channel: every finished run — its agent, session, stop reason and answer — is
delivered to a JSON Lines file, written through the sandbox (allow the file in
\`sandbox({ files: { write: [...] } })\`). A delivery that fails is a warning; the run is not
affected. The \`${n.service}\` service reads what was delivered.

\`\`\`ts
// oryx.config.ts
import ${n.factory} from '${n.pkg}';
export default defineConfig({ plugins: [sandbox({ files: { write: ['.oryxos/${n.name}.jsonl'] } }), ${n.factory}()] });
\`\`\`

## Options

| option | default | what |
| --- | --- | --- |
| \`file\` | \`.oryxos/${n.name}.jsonl\` | The journal, relative to the folder of oryx.config.ts. |

${errorTable(codes)}`,
  };
}

function provider(n: Names): Record<string, string> {
  const codes = {
    [`ORYX_E_${n.area}_OPTIONS`]: `Fix the option the message names in ${n.factory}({...}) in oryx.config.ts.`,
  };
  return {
    'src/errors.ts': errorsTs(n, codes),
    'src/index.ts': `import { isOryxError, type ChatRequest, type ChatResponse, type Provider } from '@oryxos/provider-spec';
import { pluginPackage, type Plugin } from '@oryxos/kernel';
import {
  shape as s, validateOptions, PROVIDER_CALL_DEFAULTS, PROVIDER_CALL_SHAPE, callCap, providerAbortError, providerBadResponseError, providerCallCapError,
  providerConnectionError, providerStatusError, providerTimeoutError, retryPolicy, type ProviderCallOptions, type ProviderFix,
} from '@oryxos/provider-kit';

export { ERROR_CODES } from './errors.ts';

/** Options of {@link ${n.factory}}. */
export interface ${cap(n.factory)}Options extends ProviderCallOptions {
  /** The server's base URL: the provider POSTs to \`<baseURL>/chat\`. */
  baseURL: string;
  /** The model agents use when their AGENT.md names none. */
  defaultModel?: string;
  /** The API key; default the ${n.env} variable. Sent as a bearer token. */
  apiKey?: string;
  /** The provider name agents refer to. Default \`${n.name}\`. */
  name?: string;
}

const optionsShape = s.object({
  baseURL: s.string().refine((url) => URL.canParse(url), 'a URL'),
  defaultModel: s.string({ min: 1 }).optional(),
  apiKey: s.string().optional(),
  name: s.string({ min: 1 }).optional(),
  ...PROVIDER_CALL_SHAPE,
});

/**
 * An LLM provider for a server that answers \`POST <baseURL>/chat\` with
 * \`{"model", "messages": [{"role", "content"}]}\` → \`{"content", "usage": {"input", "output"}}\`.
 * Failures carry the kernel's ORYX_E_LLM_* codes (classified by @oryxos/provider-kit) and are
 * retried by the kernel when they may pass. Tool calls are not part of this wire.
 *
 * @example
 * // oryx.config.ts
 * import ${n.factory} from '${n.pkg}';
 * export default defineConfig({ plugins: [${n.factory}({ baseURL: 'http://127.0.0.1:9000', defaultModel: 'small' })] });
 */
export default function ${n.factory}(options: ${cap(n.factory)}Options): Plugin {
  const opts = validateOptions(optionsShape, options, { plugin: '${n.factory}', code: 'ORYX_E_${n.area}_OPTIONS', example: "${n.factory}({ baseURL: 'http://127.0.0.1:9000' })" });
  return {
    ...pluginPackage(import.meta.url),
    name: opts.name ?? '${n.name}',
    options: opts,
    setup(ctx) {
      const apiKey = opts.apiKey ?? process.env.${n.env};
      ctx.secrets.add(apiKey);
      ctx.registerProvider(create(opts, apiKey));
    },
  };
}

function create(opts: ${cap(n.factory)}Options, apiKey: string | undefined): Provider {
  const name = opts.name ?? '${n.name}';
  const url = \`\${opts.baseURL.replace(/\\/$/, '')}/chat\`;
  const timeoutMs = opts.timeoutMs ?? PROVIDER_CALL_DEFAULTS.timeoutMs;
  const callTimeoutMs = opts.callTimeoutMs ?? PROVIDER_CALL_DEFAULTS.callTimeoutMs;
  const fix: ProviderFix = { unreachable: \`Start the server, or fix baseURL in ${n.factory}({ baseURL }) (now \${opts.baseURL}).\`, timeout: 'timeoutMs in ${n.factory}({ timeoutMs })', timeoutMs };
  return {
    name,
    defaultModel: opts.defaultModel,
    retry: retryPolicy(opts),
    async chat(request: ChatRequest): Promise<ChatResponse> {
      const ctx = { provider: name, model: request.model, url };
      const cap = callCap(callTimeoutMs);
      const idle = AbortSignal.timeout(timeoutMs);
      try {
        const res = await fetch(url, {
          method: 'POST', signal: AbortSignal.any([cap.with(request.signal), idle]),
          headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: \`Bearer \${apiKey}\` } : {}) },
          body: JSON.stringify({ model: request.model, messages: request.messages.map((m) => ({ role: m.role, content: m.content })) }),
        });
        const text = await res.text();
        if (!res.ok) {
          throw providerStatusError({ status: res.status, message: text.slice(0, 500), headers: res.headers, ctx, keyHint: 'Check ${n.env} or apiKey in ${n.factory}({ apiKey }).', modelHint: 'Check the model name.' });
        }
        let body: { content?: unknown; usage?: { input?: number; output?: number } };
        try { body = JSON.parse(text); } catch (error) { throw providerBadResponseError(\`the answer from \${url} is not JSON\`, ctx, fix, error); }
        if (typeof body.content !== 'string') throw providerBadResponseError(\`the answer from \${url} has no content\`, ctx, fix);
        return {
          message: { role: 'assistant', content: body.content },
          usage: { inputTokens: body.usage?.input ?? 0, outputTokens: body.usage?.output ?? 0 },
          finishReason: 'stop', model: request.model,
        };
      } catch (error) {
        if (isOryxError(error)) throw error;
        if (request.signal?.aborted) throw providerAbortError(error);
        if (cap.fired) throw providerCallCapError(ctx, callTimeoutMs, '${n.factory}({ callTimeoutMs })', error);
        if (idle.aborted) throw providerTimeoutError(error, ctx, fix);
        throw providerConnectionError(error, ctx, fix);
      } finally {
        cap.clear();
      }
    },
  };
}
`,
    [`test/${n.name}.test.ts`]: `import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readmeErrorCodes, testKernel } from '@oryxos/kernel/testing';
import { wireServer } from '@oryxos/provider-kit/testing';
import ${n.factory}, { ERROR_CODES } from '../src/index.ts';

const answer = (content: string) => ({ json: { content, usage: { input: 12, output: 3 } } });

test('an answer from the server is the run\\'s answer, with its usage; the key is sent as a bearer token', async () => {
  const server = await wireServer([answer('hello there')], { framing: 'ndjson' });
  const t = await testKernel({ plugins: [${n.factory}({ baseURL: server.url, defaultModel: 'small', apiKey: 'key-for-the-test' })] });
  try {
    const r = await t.service.process({ agent: 'assistant', message: 'hi' });
    assert.equal([r.answer, r.usage], ['hello there', { inputTokens: 12, outputTokens: 3 }]);
    assert.is(server.requests[0]!.path, '/chat');
    assert.is(server.requests[0]!.body.model, 'small');
    assert.is(server.requests[0]!.headers.authorization, 'Bearer key-for-the-test');
  } finally { await t.close(); await server.close(); }
});

test('a 503 is retried, a 401 is final: the kernel\\'s ORYX_E_LLM_* codes', async () => {
  const server = await wireServer([{ status: 503, text: 'busy' }, answer('back'), { status: 401, text: 'bad key' }], { framing: 'ndjson' });
  const t = await testKernel({ plugins: [${n.factory}({ baseURL: server.url, defaultModel: 'small', retryBaseDelayMs: 1 })] });
  try {
    assert.is((await t.service.process({ agent: 'assistant', message: 'hi' })).answer, 'back');
    const r = await t.service.process({ agent: 'assistant', message: 'again' });
    assert.is(r.error?.code, 'ORYX_E_LLM_AUTH');
    assert.is(server.requests.length, 3);
  } finally { await t.close(); await server.close(); }
});

test('an unreachable server is ORYX_E_LLM_UNREACHABLE naming the URL and baseURL', async () => {
  const gone = await wireServer([], { framing: 'ndjson' });
  await gone.close();
  const t = await testKernel({ plugins: [${n.factory}({ baseURL: gone.url, defaultModel: 'small', maxRetries: 0 })] });
  try {
    const r = await t.service.process({ agent: 'assistant', message: 'hi' });
    assert.is(r.error?.code, 'ORYX_E_LLM_UNREACHABLE');
    assert.match(r.error!.hint!, 'baseURL');
  } finally { await t.close(); }
});
${readmeTest(n)}
test.run();
`,
    'README.md': `# ${n.pkg}

An OryxOS LLM provider for a server that answers \`POST <baseURL>/chat\` with
\`{"model", "messages": [{"role", "content"}]}\` → \`{"content", "usage": {"input", "output"}}\`.
Failures carry the kernel's \`ORYX_E_LLM_*\` codes, classified by \`@oryxos/provider-kit\`;
rate limits, 5xx, timeouts and resets are retried. Tool calls are not part of this wire.

\`\`\`ts
// oryx.config.ts
import ${n.factory} from '${n.pkg}';
export default defineConfig({ plugins: [${n.factory}({ baseURL: 'http://127.0.0.1:9000', defaultModel: 'small' })] });
\`\`\`

## Options

| option | default | what |
| --- | --- | --- |
| \`baseURL\` | (required) | The server: the provider POSTs to \`<baseURL>/chat\`. |
| \`defaultModel\` | — | The model for agents whose AGENT.md names none. |
| \`apiKey\` | \`${n.env}\` | Sent as a bearer token; masked wherever OryxOS writes text. |
| \`name\` | \`${n.name}\` | The provider name agents refer to. |
| \`timeoutMs\`, \`callTimeoutMs\`, \`maxRetries\`, \`retryBaseDelayMs\`, \`retryMaxDelayMs\` | 60000, 180000, 2, 500, 30000 | Time limits and retries, as every OryxOS provider takes them. |

${errorTable(codes)}`,
  };
}

const cap = (s: string) => s[0]!.toUpperCase() + s.slice(1);

const KINDS: Record<PluginKind, { make: (n: Names) => Record<string, string>; permissions: string[]; description: (n: Names) => string }> = {
  tool: { make: tool, permissions: [], description: (n) => `An OryxOS plugin: the ${n.tool} tool` },
  channel: { make: channel, permissions: ['files:write'], description: () => 'An OryxOS channel: every finished run delivered to a JSON Lines file' },
  provider: { make: provider, permissions: ['http'], description: (n) => `An OryxOS LLM provider: ${n.name}` },
};

/**
 * The files of a new plugin package, by path. `name` is lowercase letters, digits and dashes.
 *
 * @example
 * pluginTemplate('word-count', 'tool', { kernel: '^1.0.0', pluginKit: '^0.1.0', providerKit: '^0.1.0', providerSpec: '^1.0.0', contracts: '^1.0.0' })['src/index.ts']
 */
export function pluginTemplate(name: string, kind: PluginKind, deps: TemplateDeps): Record<string, string> {
  const n = names(name);
  const k = KINDS[kind];
  return {
    'package.json': packageJson(n, kind, deps, k.permissions, k.description(n)),
    'tsconfig.json': tsconfig,
    '.gitignore': 'node_modules/\ndist/\n',
    ...k.make(n),
  };
}
