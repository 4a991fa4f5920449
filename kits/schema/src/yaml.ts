/**
 * `@oryxos/schema-kit/yaml`: the `yaml` library for every OryxOS package that reads or writes
 * YAML (AGENT.md frontmatter, the MCP servers file, eval case files), so that a process loads one
 * copy of it. The build copies the library into this module (scripts/bundle-packages.mjs) — its
 * code unchanged, as esbuild bundles it — because from an ES module `import('yaml')` loads ~80
 * CommonJS files one by one: on Node 20, 53 against 18 ms of CPU for the first parse
 * (bench/README.md, "Issue 35, fifth pass"), paid by every `oryx` command that boots a kernel.
 *
 * @example
 * const { parse } = await import('@oryxos/schema-kit/yaml');
 * parse('servers: {}'); // { servers: {} }
 */
export { LineCounter, isMap, isSeq, parse, parseDocument, type Document, type Node, type YAMLMap } from 'yaml';
