/**
 * @oryxos/agent-files: agents as files. `<workspace>/agents/<name>/AGENT.md` (YAML frontmatter
 * and instructions), its skills, and the project instructions other tools read (AGENTS.md,
 * CLAUDE.md, SOUL.md, USER.md), read through a cache that re-reads only what changed. The
 * kernel uses it for its agents and supplies the settings; Markdown is data, never code.
 */
export { AgentFiles, agentFieldError, agentKeyError, type AgentFile, type AgentFilesOptions, type SkillFile } from './agent-files.ts';
export { parseFrontmatter, assertMarkdownData, type Frontmatter } from './frontmatter.ts';
