/**
 * Helpers for plugin tests: a scripted provider (the one thing tests may fake is the LLM),
 * a temp workspace with agents, a kernel started on it, test tools, and the built CLI run
 * end to end.
 *
 * @example
 * import { scripted, testKernel } from '@oryxos/kernel/testing';
 * const llm = scripted([{ toolCalls: [{ name: 'echo', args: { text: 'hi' } }] }, { text: 'done' }]);
 * const { service, close } = await testKernel({ plugins: [llm, myPlugin()], agents: { a: { tools: ['*'] } } });
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { constants, tmpdir } from 'node:os';
import path from 'node:path';
import { Kernel, resolveConfig, type Runs, type Logger, type Plugin, type Tool } from '@oryxos/kernel';
import { OryxError, type ChatRequest, type ChatResponse, type Provider, type StreamEvent, type ToolCall, type Usage, type FinishReason } from '@oryxos/provider-spec';
import type { Sandbox } from '@oryxos/contracts';

/** One scripted model turn. */
export interface ScriptStep {
  text?: string;
  toolCalls?: (Omit<ToolCall, 'id' | 'args'> & { id?: string; args?: Record<string, unknown> })[];
  usage?: Partial<Usage>;
  finishReason?: string;
  /** Throw this instead of answering (to test failures and retries). */
  error?: Error;
  /** Wait this long first (honours the request's AbortSignal). */
  delayMs?: number;
}

export type Script = (ScriptStep | ((request: ChatRequest, index: number) => ScriptStep))[];

export interface ScriptedPlugin extends Plugin {
  provider: Provider;
  /** Every request the provider received, in order. */
  requests: ChatRequest[];
}

/**
 * A provider that answers from a script and records every request. Registered under `name`
 * (default `scripted`) with default model `scripted-model`. Running past the script's end is
 * an error, so a test notices an unexpected extra call.
 */
export function scripted(script: Script, options: { name?: string; retry?: Provider['retry'] } = {}): ScriptedPlugin {
  const requests: ChatRequest[] = [];
  let calls = 0;
  const next = async (request: ChatRequest): Promise<ChatResponse> => {
    const index = calls++;
    requests.push(structuredClone({ ...request, signal: undefined }));
    const entry = script[index];
    if (!entry) throw new OryxError('ORYX_E_LLM_FAILED', `scripted provider: no step ${index + 1} in the script (it has ${script.length})`);
    const step = typeof entry === 'function' ? entry(request, index) : entry;
    if (step.delayMs) await new Promise((resolve, reject) => {
      const onAbort = () => { clearTimeout(timer); reject(request.signal!.reason ?? new Error('aborted')); };
      const timer = setTimeout(() => { request.signal?.removeEventListener('abort', onAbort); resolve(undefined); }, step.delayMs);
      request.signal?.addEventListener('abort', onAbort, { once: true });
    });
    if (step.error) throw step.error;
    const toolCalls = step.toolCalls?.map((c, i) => ({ id: c.id ?? `call_${index + 1}_${i + 1}`, name: c.name, args: c.args ?? {}, ...(c.argsError ? { argsError: c.argsError } : {}) }));
    return {
      message: { role: 'assistant', content: step.text ?? '', ...(toolCalls?.length ? { toolCalls } : {}) },
      // Like a real provider: about four characters a token, unless the step says otherwise.
      usage: {
        inputTokens: step.usage?.inputTokens ?? Math.ceil((request.messages.reduce((n, m) => n + m.content.length, 0) + JSON.stringify(request.tools).length) / 4),
        outputTokens: step.usage?.outputTokens ?? Math.max(1, Math.ceil((step.text ?? '').length / 4)),
        // Cache figures only when the step gives them, like a server that reports none.
        ...(step.usage?.cacheReadTokens !== undefined ? { cacheReadTokens: step.usage.cacheReadTokens } : {}),
        ...(step.usage?.cacheWriteTokens !== undefined ? { cacheWriteTokens: step.usage.cacheWriteTokens } : {}),
      },
      finishReason: (step.finishReason as FinishReason | undefined) ?? (toolCalls?.length ? 'tool_calls' : 'stop'),
      model: request.model,
    };
  };
  const provider: Provider = {
    name: options.name ?? 'scripted',
    defaultModel: 'scripted-model',
    retry: options.retry ?? { maxRetries: 2, baseDelayMs: 1 },
    chat: next,
    async *stream(request): AsyncIterable<StreamEvent> {
      const response = await next(request);
      for (const piece of response.message.content.match(/\S+\s*|\s+/g) ?? []) yield { type: 'text', delta: piece };
      for (const call of response.message.toolCalls ?? []) yield { type: 'tool_call', call };
      yield { type: 'done', response };
    },
  };
  return {
    name: `provider-${provider.name}`, version: '1.0.0', kernel: '^1', provider, requests,
    setup(ctx) { ctx.registerProvider(provider); },
  };
}

/**
 * A sandbox plugin that allows everything, for tests of plugins that are not the sandbox:
 * every action passes, and a program starts unconfined with the given environment on top of
 * PATH and HOME.
 */
export function allowAll(): Plugin {
  let root = process.cwd();
  const sandbox: Sandbox = {
    async enforce() { return { allow: true }; },
    async launch(request) {
      const cwd = path.resolve(root, request.cwd ?? '.');
      const env: Record<string, string> = { ...(process.env.PATH ? { PATH: process.env.PATH } : {}), ...(process.env.HOME ? { HOME: process.env.HOME } : {}), ...request.env };
      return { allow: true, launch: { file: request.command, args: request.args, cwd, env, program: request.command, confined: false, started() {}, async done() {} } };
    },
  };
  return { name: 'sandbox', version: '1.0.0', kernel: '^1', provides: ['sandbox'], setup(ctx) { root = ctx.config.root; ctx.provide('sandbox', sandbox); } };
}

/**
 * A plugin (`test-tools`) that registers the given tools.
 *
 * @example
 * const t = await testKernel({ plugins: [llm, toolsPlugin(echoTool(), myTool)] });
 */
export function toolsPlugin(...tools: Tool[]): Plugin {
  return { name: 'test-tools', version: '1.0.0', kernel: '^1', setup(ctx) { for (const t of tools) ctx.registerTool(t); } };
}

/**
 * An `echo` tool: `{text}` → `echo: <text>`, no other argument allowed; `calls` records the
 * arguments of every call, so a test sees what really ran.
 *
 * @example
 * const echo = echoTool();
 * await testKernel({ plugins: [llm, toolsPlugin(echo)] });
 * assert.equal(echo.calls, [{ text: 'hi' }]);
 */
export function echoTool(): Tool & { calls: Record<string, unknown>[] } {
  const calls: Record<string, unknown>[] = [];
  return {
    name: 'echo', description: 'Echo text back', source: 'plugin', calls,
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
    async execute(args) { calls.push(args); return `echo: ${args.text}`; },
  };
}

/**
 * A fresh folder under `<cwd>/.tmp` (tests run from the repository root), so an
 * `oryx.config.ts` written there resolves `@oryxos/*` imports from the repo's node_modules.
 */
export async function tempProject(prefix = 'oryx-'): Promise<string> {
  const base = path.join(process.cwd(), '.tmp');
  await mkdir(base, { recursive: true });
  return mkdtemp(path.join(base, prefix));
}

/** Frontmatter and body of a test agent. */
export interface TestAgent {
  description?: string;
  provider?: string;
  model?: string;
  tools?: string[];
  settings?: Record<string, unknown>;
  sandbox?: unknown;
  body?: string;
  [key: string]: unknown;
}

/** Writes `agents/<name>/AGENT.md` files into a workspace folder. */
export async function writeAgents(workspaceDir: string, agents: Record<string, TestAgent | string>): Promise<void> {
  for (const [name, agent] of Object.entries(agents)) {
    const dir = path.join(workspaceDir, 'agents', name);
    await mkdir(dir, { recursive: true });
    let text: string;
    if (typeof agent === 'string') text = agent;
    else {
      const { body, ...front } = agent;
      text = `---\n${JSON.stringify({ description: `test agent ${name}`, ...front }, null, 2)}\n---\n${body ?? `You are ${name}.`}\n`;
    }
    await writeFile(path.join(dir, 'AGENT.md'), text);
  }
}

export interface TestKernel {
  kernel: Kernel;
  service: Kernel['runs'];
  /** The temp project folder (workspace is `<dir>/.oryxos`). */
  dir: string;
  warnings: string[];
  /** Closes the kernel and removes the temp folder (unless `keep`). */
  close(options?: { keep?: boolean }): Promise<void>;
}

/**
 * Starts a kernel on a fresh temp project with the given plugins and agents. `configFile`
 * names the project's config file, as if the config had been loaded from it (the sandbox
 * protects it); `readOnly` starts it as a command that only reads would.
 */
export async function testKernel(options: { plugins: Plugin[]; agents?: Record<string, TestAgent | string>; dir?: string; defaultProvider?: string; configFile?: string; readOnly?: boolean }): Promise<TestKernel> {
  const dir = options.dir ?? await mkdtemp(path.join(tmpdir(), 'oryx-test-'));
  const config = resolveConfig({ plugins: options.plugins, defaultProvider: options.defaultProvider }, dir, options.configFile);
  await writeAgents(config.workspaceDir, options.agents ?? { assistant: { tools: ['*'] } });
  const warnings: string[] = [];
  const logger: Logger = { debug() {}, info() {}, warn: (m) => warnings.push(m) };
  const kernel = await new Kernel({ config, logger, readOnly: options.readOnly }).start();
  return {
    kernel, service: kernel.runs, dir, warnings,
    async close({ keep = false } = {}) {
      await kernel.close();
      if (!keep && !options.dir) await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The error-code table of a package README as `{code: "how to fix"}`, for the test that keeps
 * a package's `ERROR_CODES` and its docs in step. Every table row whose first cell is a
 * backquoted `ORYX_E_…` code counts, wherever it stands, so a stray second listing is caught
 * too; the last cell is the fix (a table may have columns between, such as an HTTP status),
 * with `\|` read as `|`. Throws when the README has no `## Error codes` heading or lists a
 * code twice.
 *
 * @example
 * const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
 * assert.equal(readmeErrorCodes(readme), { ...ERROR_CODES });
 */
export function readmeErrorCodes(readme: string): Record<string, string> {
  if (!/^## Error codes[ \t]*$/m.test(readme)) throw new Error('the README has no "## Error codes" section');
  const codes: Record<string, string> = {};
  for (const [, code, cells] of readme.matchAll(/^\|\s*`(ORYX_E_[A-Z0-9_]+)`\s*\|(.*)\|\s*$/gm)) {
    if (Object.hasOwn(codes, code!)) throw new Error(`the README lists ${code} twice`);
    codes[code!] = cells!.split(/(?<!\\)\|/).at(-1)!.trim().replaceAll('\\|', '|');
  }
  return codes;
}

/** What {@link runOryx} gives back: the exit code and everything the CLI printed. */
export interface OryxRun { code: number; stdout: string; stderr: string }

/**
 * Runs the built CLI (`node <repo>/bin/run.js …`, so build first) to its end, for end-to-end
 * tests. The repository is the nearest folder holding `bin/run.js` at or above
 * `process.cwd()` (tests run from the repository root). The child gets `process.env` with
 * `NO_COLOR=1` and `env` on top (an entry set to `undefined` is removed), and `input` on a
 * stdin that is closed either way. After `timeoutMs` (default 60 s) it is killed; a child
 * killed by a signal gets `code` 128 + the signal's number, as a shell reports it. A test that
 * signals the child or reads its output while it runs spawns it itself.
 *
 * @example
 * const r = await runOryx(['run', '-', '--json'], { cwd: dir, input: 'hi', env: { OPENAI_API_KEY: undefined } });
 * assert.is(r.code, 0, r.stderr);
 */
export function runOryx(args: string[], options: { cwd: string; input?: string; env?: Record<string, string | undefined>; timeoutMs?: number }): Promise<OryxRun> {
  let root = process.cwd();
  while (!existsSync(path.join(root, 'bin', 'run.js'))) {
    if (path.dirname(root) === root) return Promise.reject(new Error(`runOryx: no bin/run.js in ${process.cwd()} or above it`));
    root = path.dirname(root);
  }
  const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1', ...options.env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, 'bin', 'run.js'), ...args], { cwd: options.cwd, env, timeout: options.timeoutMs ?? 60_000 });
    let stdout = '', stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d; });
    child.stdin.on('error', () => {}); // EPIPE: the CLI may exit before it reads its stdin
    child.stdin.end(options.input ?? '');
    child.on('error', reject);
    child.on('close', (code, signal) => resolve(signal
      ? { code: 128 + (constants.signals[signal] ?? 0), stdout, stderr: `${stderr}\nrunOryx: killed by ${signal}` }
      : { code: code ?? 1, stdout, stderr }));
  });
}
export { prefixKept, prefixMisses, requestText } from './prefix.ts';
