import type { Brain } from './model.ts';

/**
 * The test model's behaviour for the assertion tests: each user message a small plan, the way a
 * tool-using model behaves (a call, then an answer from its result).
 */
export const brain: Brain = ({ user, step, body, toolResults, system }) => {
  if (!body.tools?.length && step > 0) return { text: 'Stopped at the limit.' };
  switch (user) {
    case 'Hello': return { text: 'Hello there!', usage: [12, 3] };
    case 'Read the README':
      return step === 0 ? { calls: [{ name: 'read_file', args: { path: 'README.md' } }], usage: [40, 8] }
        : { text: `The README says: ${toolResults.at(-1)?.content.split('\n').find((l) => l.includes('says')) ?? '?'}`, usage: [60, 12] };
    case 'Read the notes':
      return step === 0 ? { calls: [{ name: 'read_file', args: { path: 'notes/todo.md' } }] }
        : { text: `Notes: ${toolResults.at(-1)?.content.trim()}` };
    case 'Give JSON': return { text: '{"ok": true, "count": 3}' };
    case 'Give fenced JSON': return { text: 'Here:\n```json\n{"ok": false}\n```' };
    case 'Write outside':
      return step === 0 ? { calls: [{ name: 'write_file', args: { path: 'secret.txt', content: 'x' } }] } : { text: 'I could not write secret.txt.' };
    case 'Write inside':
      return step === 0 ? { calls: [{ name: 'write_file', args: { path: 'out/a.txt', content: 'hi' } }] } : { text: 'Wrote out/a.txt.' };
    case 'Read twice':
      return step < 2 ? { calls: [{ name: 'read_file', args: { path: 'README.md' } }] } : { text: 'Done reading.' };
    case 'Loop forever': return { calls: [{ name: 'list_dir', args: { path: step % 2 ? '.' : 'out' } }] };
    case 'My name is Ana': return { text: 'Nice to meet you, Ana.' };
    case 'What is my name?':
      return { text: JSON.stringify(body.messages).includes('My name is Ana') ? 'Your name is Ana.' : 'I do not know your name.' };
    case 'Who are you?': return { text: system.includes('pirate') ? 'Arr, a pirate.' : 'A careful assistant.' };
    default: return undefined;
  }
};
