/** What `oryx init` configures: the provider plugin it writes, from the keys and servers it finds. */
export type InitProvider = 'openai' | 'anthropic' | 'gemini' | 'ollama';

/** The import and the plugin line of each provider (the Gemini recipe is docs/providers.md's). */
const PROVIDER_LINES: Record<InitProvider, [string, string]> = {
  openai: ["import openai from '@oryxos/plugin-openai';", "    openai({ defaultModel: 'gpt-4o-mini' }), // reads OPENAI_API_KEY and OPENAI_BASE_URL"],
  anthropic: ["import anthropic from '@oryxos/plugin-anthropic';", "    anthropic({ defaultModel: 'claude-sonnet-4-5' }), // reads ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL"],
  gemini: ["import openai from '@oryxos/plugin-openai';",
    "    // Gemini through Google's OpenAI-compatible endpoint (docs/providers.md)\n"
    + "    openai({ name: 'gemini', baseURL: 'https://generativelanguage.googleapis.com/v1beta/openai', apiKey: process.env.GEMINI_API_KEY ?? process.env.GOOGLE_API_KEY, defaultModel: 'gemini-3-flash-preview' }),"],
  ollama: ["import ollama from '@oryxos/plugin-ollama';", "    ollama({ defaultModel: 'qwen2.5:7b' }), // OLLAMA_HOST or http://127.0.0.1:11434"],
};

/**
 * The `.gitignore` of the workspace: what `.oryxos/` keeps for this machine or of what people said.
 * `oryx doctor` tests each of its lines against a project's git (doctor.ts).
 */
export const WORKSPACE_GITIGNORE = `# This machine's: the database, its journals and the high-water mark kept beside it (shared, a
# mark would make another machine's database look damaged), server logs, the REST token, caches,
# the sandbox's records (file identities, quarantined files).
oryx.db
oryx.db-*
oryx.db.seen.json
logs/
web-token
cache/
sandbox/
**/MEMORY.md.lock
**/MEMORY.md.*.tmp
# What people said: per-user memories, and each conversation's memory and checkpoints.
memory/users/
memory/sessions/
memory/migrated-checkpoints.md
agents/*/users/
`;

/** The files `oryx init` writes, relative to the project folder. */
export function scaffold(options: { provider: InitProvider }): Record<string, string> {
  const [providerImport, providerLine] = PROVIDER_LINES[options.provider];
  return {
    'oryx.config.ts': `import { defineConfig } from '@oryxos/kernel';
${providerImport}
import sqlite from '@oryxos/plugin-sqlite';
import audit from '@oryxos/plugin-audit';
import memory from '@oryxos/plugin-memory';
import sandbox from '@oryxos/plugin-sandbox';
import tools from '@oryxos/plugin-tools';
import mcp from '@oryxos/plugin-mcp';
import web from '@oryxos/plugin-web';
import approvals from '@oryxos/plugin-approvals';
import subagents from '@oryxos/plugin-subagents';
// import scheduler from '@oryxos/plugin-scheduler';
// import notify, { env } from '@oryxos/plugin-notify';

export default defineConfig({
  defaultAgent: 'assistant',
  plugins: [
${providerLine}
    sqlite(), // sessions and audit tables in file:.oryxos/oryx.db
    audit(), // every LLM and tool call, denials too: oryx audit llm | tools | summary
    memory(), // .oryxos/memory/MEMORY.md: the agent's; users/<user>/ on oryx web; sessions/<id>/ checkpoints
    // Deny by default: only what is listed here is allowed. Paths are relative to this file.
    // Control files are never written by agents, whatever files.write says: this file and what
    // it imports, .oryxos/ (agents, skills, AGENTS.md/SOUL.md/USER.md, memory,
    // mcp_servers.yaml, the database), .git, node_modules, package.json and .npmrc. To let
    // agents write one, opt in by name: files: { allowControlWrites: ['.oryxos/agents/notes/**'] }.
    // Programs run confined to these same lists (bubblewrap): apt-get install bubblewrap socat.
    sandbox({
      files: { read: ['.'], write: ['.'], deny: ['.oryxos/oryx.db', '.oryxos/oryx.db-wal', '.oryxos/oryx.db-shm'] },
      // exec: { allow: ['git', 'ls', { command: 'npm', args: ['test|run'] }] }, // args: anchored regexes by position
      // exec: { env: ['LANG', 'LC_*'] }, // variables programs may get; LD_PRELOAD, GIT_*, NODE_OPTIONS… only by exact name
      // http: { allow: ['api.github.com', '*.wikipedia.org'] }, // also what confined programs reach, through the OryxOS proxy
      // smtp: { allow: ['smtp.example.com:587'] },
    }),
    tools(), // read_file, write_file, edit_file, list_dir, shell, http_request, current_time
    approvals(), // a call the sandbox answers "ask" for (files.ask, exec.ask…) waits for a person: oryx approvals
    subagents(), // agents: [name] in AGENT.md offers agent__<name> tools
    mcp(), // servers from .oryxos/mcp_servers.yaml
    web(), // oryx web: REST + SSE on 127.0.0.1:8787
    // Mail through SMTP (its host:port must be in smtp.allow above), and agents on a schedule
    // (each slot once; they run under oryx web, or oryx schedule start). Uncomment both imports too.
    // notify({ channels: [{ name: 'ops', host: 'smtp.example.com', port: 587, user: 'bot@example.com',
    //   pass: env('SMTP_PASS'), from: 'bot@example.com', to: ['me@example.com'] }] }), // oryx notify test ops
    // scheduler({ tasks: [
    //   { name: 'morning-brief', agent: 'assistant', message: 'Summarise what changed in this project yesterday.',
    //     cron: '0 8 * * 1-5', timezone: 'Europe/Berlin', notify: 'ops' },
    //   { name: 'inbox', agent: 'assistant', message: 'Check inbox.md and list what needs an answer.', every: '30m' },
    // ] }),
  ],
});
`,
    '.oryxos/agents/assistant/AGENT.md': `---
description: A general assistant that works with the files of this project and remembers what matters.
tools: [read_file, write_file, edit_file, list_dir, current_time, save_memory, recall_memory]
settings:
  max_iterations: 10
  max_history_turns: 20
  context_tokens: 32000
---
You are a careful, concise assistant working in the user's project folder.
Use tools to look things up instead of guessing, and say plainly when something failed.
When you learn a lasting fact about the user or the project, save it with save_memory.
`,
    '.oryxos/AGENTS.md': `# Working rules

- Read before you write; prefer small, reversible changes.
- Report what you did and what you could not do.
`,
    '.oryxos/SOUL.md': `# Character

Direct, calm and honest. No flattery, no filler.
`,
    '.oryxos/USER.md': `# About the user

(Describe yourself here: name, role, preferences. Every agent reads this file.)
`,
    '.oryxos/memory/MEMORY.md': `# Memory

## Core

## Archive
`,
    '.oryxos/mcp_servers.yaml': `# MCP servers whose tools agents may use (as <server>__<tool>; allow them in AGENT.md tools:).
# \${VAR} is replaced by the environment variable VAR. Starting a server is an exec action and
# reaching a URL an http action: the sandbox must allow them.
servers: {}
#  filesystem:
#    command: npx
#    args: [-y, "@modelcontextprotocol/server-filesystem", "."]
#    timeoutMs: 30000
#    tools: [read_file, list_directory]
#  remote:
#    url: https://mcp.example.com/mcp
#    headers:
#      Authorization: Bearer \${EXAMPLE_TOKEN}
`,
    '.oryxos/.gitignore': WORKSPACE_GITIGNORE,
  };
}

/** The provider `oryx init` enables, and why, in words for the person who ran it. */
/**
 * The provider `oryx init` writes and why, from the environment, in this order: an explicit
 * OPENAI_BASE_URL (a local server), OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY or
 * GOOGLE_API_KEY, then Ollama — said to be running when `ollamaUp` (it answered), else the
 * reason says exactly what to set or start.
 *
 * @example
 * pickProvider({ ANTHROPIC_API_KEY: 'sk-ant-…' }, false).provider // 'anthropic'
 */
export function pickProvider(env: NodeJS.ProcessEnv, ollamaUp: boolean): { provider: InitProvider; reason: string } {
  const set = (name: string) => !!env[name]?.trim();
  const key = set('OPENAI_API_KEY');
  if (set('OPENAI_BASE_URL')) {
    return {
      provider: 'openai',
      reason: `OPENAI_BASE_URL is set${key ? ' and so is OPENAI_API_KEY' : '; no OPENAI_API_KEY is needed for a server that takes none (LM Studio, vLLM, llama.cpp)'}. `
        + 'Set defaultModel in oryx.config.ts to a model that server serves',
    };
  }
  if (key) return { provider: 'openai', reason: 'OPENAI_API_KEY is set (OPENAI_BASE_URL picks another endpoint than OpenAI)' };
  if (set('ANTHROPIC_API_KEY')) return { provider: 'anthropic', reason: 'ANTHROPIC_API_KEY is set' };
  const google = set('GEMINI_API_KEY') ? 'GEMINI_API_KEY' : set('GOOGLE_API_KEY') ? 'GOOGLE_API_KEY' : undefined;
  if (google) return { provider: 'gemini', reason: `${google} is set (Gemini through Google's OpenAI-compatible endpoint)` };
  const host = env.OLLAMA_HOST?.trim() || 'http://127.0.0.1:11434';
  if (ollamaUp) return { provider: 'ollama', reason: `no model key is set and Ollama answers at ${host}` };
  return {
    provider: 'ollama',
    reason: `no model key is set and no Ollama answered at ${host}. Start Ollama (\`ollama serve\`), or set one of `
      + 'OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY (or GOOGLE_API_KEY), OPENAI_BASE_URL (a local server) and run `oryx init --force`',
  };
}

/** Whether an Ollama server answers at OLLAMA_HOST (or the default) within `timeoutMs`. */
export async function ollamaAnswers(env: NodeJS.ProcessEnv, timeoutMs = 500): Promise<boolean> {
  let base = env.OLLAMA_HOST?.trim() || 'http://127.0.0.1:11434';
  if (!/^https?:\/\//.test(base)) base = `http://${base}`;
  try {
    const response = await fetch(new URL('/api/version', base), { signal: AbortSignal.timeout(timeoutMs) });
    return response.ok;
  } catch {
    return false;
  }
}
