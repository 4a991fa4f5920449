import { checkConfigTypes } from '../doctor-types.ts';
import { Flags } from '@oclif/core';
import type { AgentDefinition, Logger, ResolvedConfig } from '@oryxos/kernel';
import { OryxCommand } from '@oryxos/command-kit';
import {
  checkDatabase, checkDoors, checkGitIgnores, checkNode, failedCheck, checkProviders, checkToolSources, checkWebPort, sandboxSummary, type DoctorCheck,
} from '../doctor.ts';
import { listJson } from '@oryxos/command-kit';

const MARK: Record<DoctorCheck['status'], string> = { ok: '✓', fail: '✗', warn: '!', skip: '-' };

export default class Doctor extends OryxCommand {
  static override summary = 'Check this setup: Node, the config, every plugin, each provider, the database, MCP servers, the doors (channels), the web port, the sandbox, what git ignores.';
  static override description = 'One line per check, ✓ or ✗, and for each failure how to fix it (! is a warning, - a check that does not apply). '
    + 'Each provider gets a one-word request with the model its agents use; every tool source (MCP server) is started and listed; '
    + 'every door that can check itself (a channel) connects to its server and logs in, naming its credentials, never printing them. '
    + 'The database is opened, its schema compared with the code and its pages checked (SQLite: quick_check, naming what is damaged and '
    + 'the command that repairs it). Nothing is written: the database is read, never migrated, and plugins create no file. Exits 1 when a check fails.';
  static override examples = ['<%= config.bin %> doctor', '<%= config.bin %> doctor --json', '<%= config.bin %> doctor --timeout 60000'];
  static override enableJsonFlag = true;
  static override readOnly = true;
  static override flags = {
    timeout: Flags.integer({ summary: 'Milliseconds each provider has to answer.', default: 30_000, min: 1 }),
  };

  async run(): Promise<{ items: DoctorCheck[] }> {
    const { flags } = await this.parse(Doctor);
    const checks: DoctorCheck[] = [checkNode(this.config.pjson.engines?.node)];
    const skipRest = (why: string) => checks.push(...['plugins', 'database', 'provider', 'tools', 'web port', 'sandbox']
      .filter((check) => !checks.some((c) => c.check === check)).map((check): DoctorCheck => ({ check, status: 'skip', detail: why })));

    let config: ResolvedConfig | undefined;
    try {
      config = await this.loadConfig();
      checks.push(config
        ? { check: 'config', status: 'ok', detail: `${config.file ?? 'oryx.config'}: ${config.plugins.length} plugin(s)` }
        : { check: 'config', status: 'fail', detail: 'no oryx.config.ts in this folder or above it (up to the project folder)', code: 'ORYX_E_CONFIG_NOT_FOUND', fix: 'Run `oryx init` here, or pass --config PATH.' });
    } catch (error) {
      checks.push(failedCheck('config', error));
    }
    if (!config) {
      skipRest('the config did not load');
      return this.report(checks);
    }

    const warnings: string[] = [];
    const logger: Logger = { debug() {}, info() {}, warn: (m) => warnings.push(m) };
    let kernel;
    try {
      ({ kernel } = await this.boot({ config, logger }));
      checks.push({ check: 'plugins', status: 'ok', detail: `setup and init passed: ${kernel.plugins.map((p) => `${p.name} ${p.version}`).join(', ')}` });
    } catch (error) {
      checks.push(failedCheck('plugins', error));
    }
    checks.push(...warnings.map((detail): DoctorCheck => ({ check: 'plugins', status: 'warn', detail })));
    if (!kernel) {
      skipRest('the plugins did not start');
      return this.report(checks);
    }

    checks.push(...await checkDatabase(kernel.hasService('database') ? kernel.service('database') : undefined));
    const agents: AgentDefinition[] = [];
    for (const name of await kernel.agents.names()) {
      try { agents.push(await kernel.agents.load(name)); } catch (error) { checks.push(failedCheck(`agent ${name}`, error)); }
    }
    checks.push(...await checkProviders(kernel, agents, flags.timeout));
    const toolAgent = agents.find((a) => a.name === config.defaultAgent) ?? agents[0];
    checks.push(...await checkToolSources(kernel, toolAgent));
    checks.push(...await checkDoors(kernel, flags.timeout));
    checks.push(await checkWebPort(config), sandboxSummary(config), await checkGitIgnores(config.workspaceDir));
    if (config.file) checks.push(await checkConfigTypes(config.file, this.config.root));
    return this.report(checks);
  }

  private report(checks: DoctorCheck[]): { items: DoctorCheck[] } {
    const failures = checks.filter((c) => c.status === 'fail').length;
    if (!this.jsonEnabled()) {
      for (const c of checks) {
        this.log(`${MARK[c.status]} ${c.check}: ${c.code ? `${c.code}: ` : ''}${c.detail}`);
        if (c.fix) this.log(`    fix: ${c.fix}`);
      }
      this.log(failures ? `\n${failures} check(s) failed.` : '\nEverything checked is working.');
    }
    if (failures) process.exitCode = 1;
    return listJson(checks);
  }
}
