import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Flags } from '@oclif/core';
import { OryxError } from '@oryxos/provider-spec';
import { ERROR_CODES } from '../errors.ts';
import { OryxCommand } from '@oryxos/command-kit';
import { precompileConfig } from '@oryxos/command-kit';
import { ollamaAnswers, pickProvider, scaffold, type InitProvider } from '../scaffold.ts';

const PROVIDER_NAMES: Record<InitProvider, string> = { openai: 'OpenAI-compatible', anthropic: 'Anthropic', gemini: 'Gemini', ollama: 'Ollama' };

export default class Init extends OryxCommand {
  static override summary = 'Create oryx.config.ts and the .oryxos workspace (an assistant agent, bootstrap files, memory).';
  static override description = 'Picks the provider from what it finds, in this order: OPENAI_BASE_URL (a local server such as '
    + 'LM Studio, vLLM or llama.cpp needs no key), OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY or GOOGLE_API_KEY '
    + '(Gemini\'s OpenAI-compatible endpoint), else Ollama (checked: does it answer?), and says which and why. '
    + 'Refuses to overwrite existing files unless --force is given.';
  static override examples = ['<%= config.bin %> init', '<%= config.bin %> init --dir my-project --force'];
  static override enableJsonFlag = true;
  static override flags = {
    dir: Flags.string({ summary: 'Project folder to initialise.', default: '.' }),
    force: Flags.boolean({ summary: 'Overwrite existing files.', default: false }),
  };

  async run() {
    const { flags } = await this.parse(Init);
    const root = path.resolve(flags.dir);
    const keyed = ['OPENAI_BASE_URL', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'GEMINI_API_KEY', 'GOOGLE_API_KEY'].some((k) => process.env[k]?.trim());
    const { provider, reason } = pickProvider(process.env, !keyed && await ollamaAnswers(process.env));
    const files = scaffold({ provider });
    const existing = Object.keys(files).filter((f) => existsSync(path.join(root, f)));
    if (existing.length && !flags.force) {
      throw new OryxError('ORYX_E_INIT_EXISTS', `Not overwriting existing files: ${existing.join(', ')}`, {
        hint: ERROR_CODES.ORYX_E_INIT_EXISTS,
      });
    }
    for (const [file, content] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(root, file)), { recursive: true });
      await writeFile(path.join(root, file), content);
    }
    const typed = await writeTypesConfig(root, this.config.root);
    // Compiled now, so a read command run next (`oryx agents`, `doctor`), which never writes the
    // cache, does not compile it again each time until a run does. Best effort: the config is
    // compiled by the first command that needs it otherwise.
    await precompileConfig(path.join(root, 'oryx.config.ts')).catch(() => false);
    if (!this.jsonEnabled()) {
      this.log(`Created ${Object.keys(files).length} files in ${root}:`);
      for (const f of Object.keys(files)) this.log(`  ${f}`);
      if (typed) this.log(`  tsconfig.json (types of @oryxos/* from this installation, for your editor and tsc)`);
      this.log(`Provider: ${PROVIDER_NAMES[provider]}, because ${reason}.`);
      this.log('Next: oryx run "hello"');
    }
    return { root, provider, reason, files: [...Object.keys(files), ...(typed ? ['tsconfig.json'] : [])], overwritten: existing };
  }
}

/**
 * A tsconfig.json that resolves `@oryxos/*` to this installation's packages, so an editor and
 * `tsc` type the config (a hook reading `call.arguments` instead of `call.args` is an error) in
 * a folder with no node_modules — the global install. Not written when the project has a
 * tsconfig.json or its own @oryxos packages (theirs win). Oryx itself never reads it.
 */
async function writeTypesConfig(root: string, installation: string): Promise<boolean> {
  if (existsSync(path.join(root, 'tsconfig.json')) || existsSync(path.join(root, 'node_modules', '@oryxos', 'kernel'))) return false;
  const packages = path.join(installation, 'node_modules', '@oryxos');
  if (!existsSync(path.join(packages, 'kernel'))) return false;
  const config = {
    compilerOptions: {
      target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', strict: true, noEmit: true, skipLibCheck: true, types: [],
      paths: { '@oryxos/*': [`${packages}/*`] },
    },
    include: ['oryx.config.ts'],
  };
  await writeFile(path.join(root, 'tsconfig.json'), `// Written by \`oryx init\`: types of @oryxos/* from the oryx installation, for your editor and\n// \`npx tsc -p .\`. oryx does not read this file; run \`oryx init\` again after moving the installation.\n${JSON.stringify(config, null, 2)}\n`);
  return true;
}

