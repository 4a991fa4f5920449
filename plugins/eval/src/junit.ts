/**
 * JUnit XML, the report CI systems display (Jenkins, GitLab, GitHub Actions through a reporter,
 * Azure DevOps, CircleCI): `<testsuites>` with one `<testsuite>` per agent, one `<testcase>` per
 * case, a `<failure>` for a failed check, an `<error>` for a run that failed or diverged, a
 * `<skipped>` for a skipped case. It is valid against both schemas these tools read: Jenkins'
 * JUnit XSD and the stricter one of Apache Ant's JUnit task (attributes such as `hostname`,
 * `timestamp` and `package`, `properties` and `system-out`/`system-err` in each suite).
 */
import { hostname } from 'node:os';
import type { CaseReport } from './outcome.ts';

/** Text as XML: escaped, and without the characters XML 1.0 cannot hold at all. */
function xml(text: string): string {
  return text
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')
    .replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);
/** Ant's timestamp: ISO 8601 to the second, without a time zone (it is UTC). */
const timestamp = (date: Date) => date.toISOString().slice(0, 19);

/** What goes in the `<failure>` or `<error>` text: the evidence, where the case is, its sessions. */
function detail(r: CaseReport): string {
  const lines = [
    r.failure ? `${r.failure.assertion}: ${r.failure.evidence}` : '',
    `case: ${r.file}:${r.line} (${r.mode}${r.runs > 1 ? `, ${r.passed}/${r.runs} runs passed` : ''})`,
    ...(r.sessions.length ? [`sessions: ${r.sessions.join(' ')} (oryx sessions show ID)`] : []),
  ];
  return lines.filter(Boolean).join('\n');
}

function testcase(r: CaseReport): string {
  const head = `    <testcase name="${xml(r.name)}" classname="${xml(`oryx.eval.${r.agent}`)}" time="${seconds(r.durationMs * r.runs)}"`;
  const message = xml(r.failure ? `${r.failure.assertion}: ${r.failure.evidence}`.slice(0, 500) : r.status);
  switch (r.status) {
    case 'pass': return `${head}/>`;
    case 'skipped': return `${head}>\n      <skipped message="${xml(r.skipped ?? 'skipped')}"/>\n    </testcase>`;
    case 'fail': return `${head}>\n      <failure type="assertion" message="${message}">${xml(detail(r))}</failure>\n    </testcase>`;
    default: return `${head}>\n      <error type="${r.status}" message="${message}">${xml(detail(r))}</error>\n    </testcase>`;
  }
}

/**
 * The JUnit XML of an eval.
 *
 * @example
 * await writeFile('eval-results.xml', junitXml(reports));
 */
export function junitXml(reports: CaseReport[], options: { at?: Date; host?: string } = {}): string {
  const at = options.at ?? new Date();
  const host = options.host ?? (hostname() || 'localhost');
  const agents = [...new Set(reports.map((r) => r.agent))];
  const count = (list: CaseReport[], ...statuses: string[]) => list.filter((r) => statuses.includes(r.status)).length;
  const time = (list: CaseReport[]) => seconds(list.reduce((sum, r) => sum + r.durationMs * r.runs, 0));
  const suites = agents.map((agent, id) => {
    const list = reports.filter((r) => r.agent === agent);
    const sessions = list.flatMap((r) => r.sessions.map((s) => `${r.name}: ${s}`));
    return [
      `  <testsuite name="${xml(`oryx eval ${agent}`)}" package="${xml(`oryx.eval.${agent}`)}" id="${id}" timestamp="${timestamp(at)}" hostname="${xml(host)}"`
        + ` tests="${list.length}" failures="${count(list, 'fail')}" errors="${count(list, 'error', 'diverged')}" skipped="${count(list, 'skipped')}" time="${time(list)}">`,
      '    <properties>',
      `      <property name="agent" value="${xml(agent)}"/>`,
      '    </properties>',
      ...list.map(testcase),
      `    <system-out>${xml(sessions.join('\n'))}</system-out>`,
      '    <system-err></system-err>',
      '  </testsuite>',
    ].join('\n');
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    // No attributes: Ant's schema declares none on <testsuites> (each suite carries its own counts).
    '<testsuites>',
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
