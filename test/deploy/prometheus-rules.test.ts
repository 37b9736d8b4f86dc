/**
 * deploy/prometheus/alerts.yml: promtool accepts the rules and its unit tests
 * (alerts.test.yml) pass; a copy with a broken rule fails both, so the checks
 * can fail. Every alert has a `for:`, a severity, a summary, a description
 * and a runbook naming a section of docs/deployment.md that exists, and the
 * unit tests hold, for each alert, a case where it fires and one where it
 * stays silent. Without promtool (scripts/install-prometheus installs it) the
 * promtool checks are skipped with that said; CI has it.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/temp-dir.ts';
import { alertRules, deployPath, headingAnchors, promtool, ROOT, yamlOf } from './deploy-files.ts';

const RULES = deployPath('prometheus', 'alerts.yml');
const TESTS = deployPath('prometheus', 'alerts.test.yml');
const tool = promtool();
if (tool === undefined) console.warn('promtool is not installed (scripts/install-prometheus): the promtool checks of deploy/prometheus are skipped');

const run = (...args: string[]) => spawnSync(tool!, args, { encoding: 'utf8', timeout: 60_000 });

describe.skipIf(tool === undefined)('promtool on deploy/prometheus', () => {
  it('accepts the rules (check rules)', () => {
    const checked = run('check', 'rules', RULES);
    expect(checked.stdout + checked.stderr).toContain(`SUCCESS: ${alertRules().length} rules found`);
    expect(checked.status).toBe(0);
  });

  it('passes the unit tests (test rules)', () => {
    const tested = run('test', 'rules', TESTS);
    expect(tested.stdout + tested.stderr).toContain('SUCCESS');
    expect(tested.status).toBe(0);
  });

  it('fails both on a copy whose rule is broken, so the checks can fail', () => {
    const dir = tempDir('rules-');
    copyFileSync(TESTS, join(dir, 'alerts.test.yml'));
    // A threshold moved (the backlog alert no longer fires where its test says) and an expression that does not parse.
    const moved = readFileSync(RULES, 'utf8').replace('threadgate_jobs_oldest_due_seconds) > 900', 'threadgate_jobs_oldest_due_seconds) > 90000');
    writeFileSync(join(dir, 'alerts.yml'), moved);
    const tested = run('test', 'rules', join(dir, 'alerts.test.yml'));
    expect(tested.status).not.toBe(0);
    expect(tested.stdout + tested.stderr).toContain('alertname: ThreadgateBacklogOld');

    writeFileSync(join(dir, 'alerts.yml'), moved.replace('max by (kind) (threadgate_jobs_oldest_due_seconds)', 'max by (kind) (threadgate_jobs_oldest_due_seconds'));
    const checked = run('check', 'rules', join(dir, 'alerts.yml'));
    expect(checked.status).not.toBe(0);
  });
});

describe('the alerting rules', () => {
  const rules = alertRules();
  const anchors = headingAnchors(readFileSync(join(ROOT, 'docs/deployment.md'), 'utf8'));

  it('cover the conditions of the issue, each alert named once', () => {
    const names = rules.map((r) => r.alert);
    expect(new Set(names).size).toBe(names.length);
    for (const metric of ['threadgate_dead_letters', 'threadgate_jobs_oldest_due_seconds', 'threadgate_connector_up', 'threadgate_connector_paused',
      'threadgate_platform_up', 'threadgate_platform_auth_ok', 'threadgate_http_responses_total', 'threadgate_store_up']) {
      expect(rules.filter((r) => r.expr.includes(metric)).map((r) => r.alert), metric).not.toEqual([]);
    }
  });

  it.each(rules.map((r) => [r.alert, r] as const))('%s has for, a severity, a summary, a description and a runbook section of docs/deployment.md', (_, rule) => {
    expect(rule.for).toMatch(/^\d+[smh]$/);
    expect(['warning', 'critical']).toContain(rule.labels?.severity);
    expect(rule.annotations?.summary).toBeTruthy();
    expect(rule.annotations?.description).toBeTruthy();
    const runbook = /^docs\/deployment\.md#(.+)$/.exec(rule.annotations?.runbook ?? '');
    expect(runbook, `runbook of ${rule.alert}`).not.toBeNull();
    expect([...anchors]).toContain(runbook![1]);
  });

  it('each have a unit test where they fire and one where they stay silent', () => {
    type Case = { alertname: string; exp_alerts: unknown[] };
    const cases = yamlOf<{ tests: { alert_rule_test: Case[] }[] }>('prometheus', 'alerts.test.yml').tests.flatMap((t) => t.alert_rule_test);
    const untested = rules.flatMap((r) => {
      const own = cases.filter((c) => c.alertname === r.alert);
      return [
        own.some((c) => c.exp_alerts.length > 0) ? [] : [`${r.alert}: no case where it fires`],
        own.some((c) => c.exp_alerts.length === 0) ? [] : [`${r.alert}: no case where it stays silent`],
      ].flat();
    });
    expect(untested).toEqual([]);
  });
});

describe('headingAnchors', () => {
  it('anchors headings as GitHub does, outside code fences only', () => {
    const anchors = headingAnchors('# Deploying threadgate\n## 5xx answers\n```sh\n# not a heading\n```\n### The platform down, or the token refused\n');
    expect([...anchors]).toEqual(['deploying-threadgate', '5xx-answers', 'the-platform-down-or-the-token-refused']);
  });
});
