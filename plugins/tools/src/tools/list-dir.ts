import { shape as s, type Infer } from '@oryxos/schema-kit';
import type { Tool } from '@oryxos/kernel';
import { builtinTool, fileAction, later, type ToolEnv } from '../builtin.ts';

const MAX_DEPTH = 10;
const args = s.object({ path: s.string({ min: 1 }), depth: s.integer({ min: 1, max: MAX_DEPTH }).optional() });
export type ListDirArgs = Infer<typeof args>;

/** `list_dir {path, depth?}`: folders and files below a folder; symlinks shown, never followed. */
export function listDirTool(env: ToolEnv): Tool {
  const { maxListEntries } = env.options;
  return builtinTool({
    name: 'list_dir',
    idempotent: true, // it only reads
    description: `List a folder: one entry per line, paths relative to the project folder, folders ending in "/", file sizes in bytes, symbolic links as "name -> target" (not followed). Goes depth levels down (default 1, at most ${MAX_DEPTH}); at most ${maxListEntries} entries.`,
    args,
    describe: {
      path: 'The folder, relative to the project folder or absolute ("." for the project itself).',
      depth: 'How many levels to go down. Default 1 (only the folder\'s own entries).',
    },
    actions: (a) => [fileAction('read', a.path, env)],
    execute: later((r) => r.listDir, env),
  });
}
