// Input tokens a provider could serve from its prompt cache (issue 37): a 10-step run (nine tool
// calls and the answer, ten model calls: max_iterations) and a
// 30-turn session on a scripted model, each request compared with the one before it. A
// request's "hits" are the characters it shares from its first byte with the previous request
// (what prefix caching reuses), its input all of its characters; both as tokens at four
// characters a token (an approximation: no tokenizer, and no provider's minimum cacheable
// length or block size). "before" replays the prompt of the kernel before issue 37 as that
// issue measured it: a `## Current time` section to the millisecond at the end of the system
// prompt, rebuilt every call. Run: node --import tsx bench/prompt-cache.ts
import type { ChatRequest } from '@oryxos/provider-spec';
import type { Plugin } from '@oryxos/kernel';
import { echoTool, requestText, scripted, testKernel, toolsPlugin } from '@oryxos/kernel/testing';

/** The old prompt's clock: the time to the millisecond, last in the system prompt, every call. */
const clock: Plugin = {
  name: 'old-clock', version: '1.0.0', kernel: '^1',
  setup(ctx) {
    ctx.hooks.prepareStep.tapPromise({}, async (prompt) => {
      prompt.system.push({ id: 'time', title: 'Current time', content: new Date(Date.now() + Math.random() * 1e6).toISOString() });
      return prompt;
    });
  },
};

const body = `You are a careful engineer. ${'Follow the project conventions, explain what you change and why. '.repeat(30)}`;
const toolStep = (n: number) => ({ toolCalls: [{ name: 'echo', args: { text: `look at part ${n}: ${'details '.repeat(60)}` } }] });
const answer = (n: number) => ({ text: `Here is what I found about ${n}: ${'findings '.repeat(30)}` });

/** Hit and input tokens over consecutive requests (the first one has no cache to read). */
function hits(requests: ChatRequest[]): { input: number; hit: number; most: number } {
  let input = 0, hit = 0, most = 0;
  const texts = requests.map(requestText);
  texts.forEach((text, i) => {
    input += Math.ceil(text.length / 4);
    if (i === 0) return;
    const prev = texts[i - 1]!;
    most += Math.floor(prev.length / 4);
    let n = 0;
    while (n < prev.length && prev.charCodeAt(n) === text.charCodeAt(n)) n++;
    hit += Math.floor(n / 4);
  });
  return { input, hit, most };
}

async function measure(kind: 'run' | 'session', before: boolean): Promise<{ requests: number; input: number; hit: number; most: number }> {
  const script = kind === 'run'
    ? [...Array.from({ length: 9 }, (_, i) => toolStep(i + 1)), answer(0)]
    : Array.from({ length: 30 }, (_, i) => [toolStep(i + 1), answer(i + 1)]).flat();
  const llm = scripted(script);
  const t = await testKernel({ plugins: [llm, toolsPlugin(echoTool()), ...(before ? [clock] : [])], agents: { assistant: { tools: ['echo'], body } } });
  try {
    let session: string | undefined;
    for (let turn = 1; turn <= (kind === 'run' ? 1 : 30); turn++) {
      session = (await t.service.process({ agent: 'assistant', session, message: `question ${turn}: ${'context '.repeat(25)}` })).sessionId;
    }
    return { requests: llm.requests.length, ...hits(llm.requests) };
  } finally {
    await t.close();
  }
}

const pct = (a: number, b: number) => `${((a / b) * 100).toFixed(1)}%`;
console.log('input tokens that would be prefix-cache hits (tokens ≈ characters / 4)');
// "most": every request repeats the whole one before it (the first one and each step's new part are misses whatever the prompt).
console.log('case                                requests  input tokens  hits before      hits after      most possible');
for (const [kind, label] of [['run', '10-step run'], ['session', '30-turn session (1 tool step a turn)']] as const) {
  const old = await measure(kind, true);
  const now = await measure(kind, false);
  console.log(`${label.padEnd(36)}${String(now.requests).padStart(8)}  ${String(now.input).padStart(12)}  ${`${old.hit} (${pct(old.hit, old.input)})`.padStart(15)}  ${`${now.hit} (${pct(now.hit, now.input)})`.padStart(14)}  ${`${now.most} (${pct(now.most, now.input)})`.padStart(17)}`);
}
