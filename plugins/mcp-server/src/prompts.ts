/**
 * The agents' skills as MCP prompts: `prompts: ['review']` offers the skill `review` of an
 * exposed agent. A prompt is the skill's body as a user message, its `{{name}}` placeholders
 * filled from the arguments its frontmatter declares; images the body links to in the skill's
 * folder follow as image messages, and an argument declared `resource: true` embeds the
 * resource of this server that its value names.
 *
 * ```markdown
 * ---
 * description: Review a change
 * arguments:
 *   - { name: focus, description: What to look at, required: true, values: [security, style] }
 *   - { name: session, description: A session to review, resource: true }
 * ---
 * Review it for {{focus}}.
 * ```
 */
import { readFile, realpath } from 'node:fs/promises';
import path from 'node:path';
import { completable } from '@modelcontextprotocol/sdk/server/completable.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { GetPromptResult } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { parseFrontmatter, type SkillFile as SkillRef } from '@oryxos/agent-files';
import type { PluginContext } from '@oryxos/kernel';
import { mcpServeError } from './errors.ts';
import type { Resources } from './resources.ts';

/** One argument a skill declares. */
export interface SkillArgument { name: string; description?: string; required: boolean; values: string[]; resource: boolean }

const IMAGE_TYPES: Record<string, string> = { '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.webp': 'image/webp' };
/** `![alt](relative/path.png)`: images the body shows. */
const IMAGE_LINK = /!\[[^\]]*\]\(([^)\s]+)\)/g;
const ARG_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;

/** The arguments of a skill's frontmatter; a malformed list is ORYX_E_MCPSERVE_PROMPT naming the file. */
export function skillArguments(data: Record<string, unknown>, file: string): SkillArgument[] {
  const raw = data.arguments ?? [];
  const bad = (why: string) => mcpServeError('ORYX_E_MCPSERVE_PROMPT', `${file}: arguments ${why}`);
  if (!Array.isArray(raw)) throw bad('must be a list of { name, description?, required?, values?, resource? }');
  return raw.map((a, i) => {
    if (typeof a !== 'object' || a === null || typeof (a as { name?: unknown }).name !== 'string' || !ARG_NAME.test((a as { name: string }).name)) {
      throw bad(`[${i}] needs a name of letters, digits, _ and - (was ${JSON.stringify(a)})`);
    }
    const { name, description, required, values, resource, ...rest } = a as Record<string, unknown>;
    if (Object.keys(rest).length) throw bad(`[${i}] has unknown keys ${Object.keys(rest).join(', ')} (known: name, description, required, values, resource)`);
    if (values !== undefined && !(Array.isArray(values) && values.every((v) => typeof v === 'string'))) throw bad(`[${i}].values must be a list of strings`);
    return { name: name as string, ...(typeof description === 'string' ? { description } : {}), required: required === true, values: (values as string[] | undefined) ?? [], resource: resource === true };
  });
}

/**
 * Registers each listed skill as a prompt. Throws ORYX_E_MCPSERVE_UNKNOWN_PROMPT for a name no
 * exposed agent has as a skill.
 */
export async function registerPrompts(server: McpServer, ctx: PluginContext, names: string[], agents: string[], resources: Resources): Promise<void> {
  if (!names.length) return;
  const skills = new Map<string, SkillRef>();
  for (const agent of agents) for (const skill of (await ctx.agents.load(agent)).skills) if (!skills.has(skill.name)) skills.set(skill.name, skill);
  for (const name of names) {
    const skill = skills.get(name);
    if (!skill) {
      throw mcpServeError('ORYX_E_MCPSERVE_UNKNOWN_PROMPT', `mcpServer(): prompts lists "${name}", which no exposed agent has as a skill (skills: ${[...skills.keys()].join(', ') || 'none'})`);
    }
    const { data } = await parseFrontmatter(await readFile(skill.path, 'utf8'), skill.path);
    const args = skillArguments(data, skill.path);
    const shape = Object.fromEntries(args.map((a) => {
      const field = completable(z.string().describe(a.description ?? a.name), (value) => a.values.filter((v) => v.startsWith(value ?? '')));
      return [a.name, a.required ? field : field.optional()];
    }));
    server.registerPrompt(name, {
      title: name, description: skill.description || `The skill ${name}`, ...(args.length ? { argsSchema: shape as never } : {}),
    }, (async (given: Record<string, string | undefined> = {}) => promptOf(skill, args, given, resources)) as never);
  }
}

/** The prompt's messages, read again from the skill file (an edit applies to the next get). */
async function promptOf(skill: SkillRef, args: SkillArgument[], given: Record<string, string | undefined>, resources: Resources): Promise<GetPromptResult> {
  const { content } = await parseFrontmatter(await readFile(skill.path, 'utf8'), skill.path);
  const known = new Set(args.map((a) => a.name));
  const text = content.trim().replace(/\{\{\s*([A-Za-z_][A-Za-z0-9_-]*)\s*\}\}/g, (whole, name: string) => (known.has(name) ? given[name] ?? '' : whole));
  const messages: GetPromptResult['messages'] = [{ role: 'user', content: { type: 'text', text } }];
  const folder = await realpath(path.dirname(skill.path));
  for (const [, link] of content.matchAll(IMAGE_LINK)) {
    const type = IMAGE_TYPES[path.extname(link!).toLowerCase()];
    if (!type || /^[a-z]+:/i.test(link!)) continue;
    // Only files of the skill's own folder, symbolic links resolved: a link out of it (`../../secret.png`) stays text.
    const file = await realpath(path.resolve(folder, decodeURIComponent(link!))).catch(() => undefined);
    if (!file || path.relative(folder, file).startsWith('..') || path.isAbsolute(path.relative(folder, file))) continue;
    const bytes = await readFile(file).catch(() => undefined);
    if (bytes) messages.push({ role: 'user', content: { type: 'image', mimeType: type, data: bytes.toString('base64') } });
  }
  for (const a of args.filter((x) => x.resource && given[x.name])) {
    const contents = await resources.read(given[a.name]!);
    if (!contents) throw mcpServeError('ORYX_E_MCPSERVE_PROMPT', `prompt ${skill.name}: argument ${a.name} names ${given[a.name]}, which is not a resource of this server`);
    for (const c of contents) {
      messages.push({
        role: 'user',
        content: { type: 'resource', resource: c.blob !== undefined ? { uri: c.uri, mimeType: c.mimeType ?? 'application/octet-stream', blob: c.blob } : { uri: c.uri, mimeType: c.mimeType ?? 'text/plain', text: c.text ?? '' } },
      });
    }
  }
  return { description: skill.description, messages };
}
