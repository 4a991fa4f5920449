import type { Kernel } from '@oryxos/kernel';
import { resolveSessionId } from '@oryxos/command-kit';

/** What `oryx chat` talks with; the slash commands change it between messages. */
export interface ChatState {
  agent: string;
  session?: string;
  /** A model for this chat's runs instead of the agent's (`/model NAME`). */
  model?: string;
}

/** The slash commands, as `/help` lists them. */
export const CHAT_COMMANDS: readonly [string, string][] = [
  ['/help', 'this list'],
  ['/new', 'start a new session with the same agent'],
  ['/session', 'the id of this session'],
  ['/sessions', 'the latest sessions (of this agent)'],
  ['/resume ID', 'go on with a stored session (its id or the 8 characters /sessions shows), and its agent'],
  ['/agent NAME', 'talk with another agent, in a new session (/agent alone lists them)'],
  ['/model NAME', 'use this model for the next messages (/model alone shows it; /model - goes back to the agent\'s)'],
  ['/exit', 'leave (also /quit, Ctrl-D)'],
];

/**
 * Runs one slash command of `oryx chat` on the chat's state and says what to print; undefined
 * when the line is not a command (it is sent to the agent). An unknown command is answered with
 * the list, never sent to the model. A failure (an unknown agent or session) is thrown as its
 * OryxError, and the state is left as it was.
 *
 * @example
 * await chatCommand('/model gpt-4o-mini', state, kernel) // 'Model: gpt-4o-mini for the next messages.'
 */
export async function chatCommand(line: string, state: ChatState, kernel: Pick<Kernel, 'agents' | 'service'>): Promise<string | undefined> {
  // `/etc/hosts: what is this?` is a message: a command is a slash and a word.
  if (!/^\/[a-z]+(?:\s|$)/.test(line)) return undefined;
  const [name = '', ...rest] = line.split(/\s+/);
  const arg = rest.join(' ');
  const sessions = () => kernel.service('sessions');
  switch (name) {
    case '/help':
      return CHAT_COMMANDS.map(([c, what]) => `  ${c.padEnd(13)} ${what}`).join('\n');
    case '/new':
      state.session = undefined;
      return 'New session.';
    case '/session':
      return state.session ?? '(no session yet)';
    case '/sessions': {
      const page = await sessions().list({ agent: state.agent, limit: 10 });
      if (!page.items.length) return `No sessions of ${state.agent} yet.`;
      return page.items.map((s) => `  ${s.id.slice(0, 8)}  ${s.updatedAt.replace('T', ' ').slice(0, 16)}  ${s.title.slice(0, 60)}${s.id === state.session ? '  (this one)' : ''}`).join('\n');
    }
    case '/resume': {
      if (!arg) return 'Usage: /resume ID (see /sessions).';
      const found = await resolveSessionId(sessions(), arg);
      state.session = found.id;
      state.agent = found.agent;
      return `Resumed session ${found.id} with ${found.agent}.`;
    }
    case '/agent': {
      if (!arg) return `Agents: ${(await kernel.agents.names()).join(', ')} (now: ${state.agent}).`;
      await kernel.agents.load(arg); // an unknown or invalid agent fails here, naming the fix
      state.agent = arg;
      state.session = undefined;
      return `Now talking with ${arg}, in a new session.`;
    }
    case '/model':
      if (!arg) return state.model ? `Model: ${state.model} (for this chat).` : 'Model: the agent\'s own.';
      if (arg === '-') { delete state.model; return 'Model: the agent\'s own again.'; }
      state.model = arg;
      return `Model: ${arg} for the next messages.`;
    default:
      return `Unknown command ${name}. Commands:\n${CHAT_COMMANDS.map(([c, what]) => `  ${c.padEnd(13)} ${what}`).join('\n')}`;
  }
}
