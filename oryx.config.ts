// This repository's own config: the offline quickstart of the README. The model is replayed
// from .oryxos/cassettes/quickstart.jsonl; the tools, the sandbox, the session store and the
// audit trail are real. `oryx init` writes a config for a live model instead.
import { defineConfig } from '@oryxos/kernel';
import replay from '@oryxos/plugin-replay';
import sqlite from '@oryxos/plugin-sqlite';
import audit from '@oryxos/plugin-audit';
import memory from '@oryxos/plugin-memory';
import sandbox from '@oryxos/plugin-sandbox';
import tools from '@oryxos/plugin-tools';
import mcp from '@oryxos/plugin-mcp';
import web from '@oryxos/plugin-web';
import approvals from '@oryxos/plugin-approvals';

export default defineConfig({
  defaultAgent: 'assistant',
  plugins: [
    replay({ cassette: 'quickstart' }),
    sqlite(),
    audit(),
    memory(),
    sandbox({
      files: { read: ['.'], write: ['.oryxos/memory'], deny: ['.oryxos/oryx.db', '.oryxos/oryx.db-wal', '.oryxos/oryx.db-shm'] },
    }),
    tools({ maxOutputChars: 60_000 }), // the whole README fits in one read_file result
    mcp(),
    web(),
    approvals(),
  ],
});
