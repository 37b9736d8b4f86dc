/**
 * Reading the shipped files of deploy/ for their tests: paths, YAML, the
 * alerting rules, the headings of docs/deployment.md as GitHub anchors them,
 * and whether promtool is on this machine (scripts/install-prometheus puts it
 * there).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';

export const ROOT = join(import.meta.dirname, '../..');
export const DEPLOY = join(ROOT, 'deploy');
export const deployPath = (...parts: string[]): string => join(DEPLOY, ...parts);
export const readDeploy = (...parts: string[]): string => readFileSync(deployPath(...parts), 'utf8');
export const yamlOf = <T = unknown>(...parts: string[]): T => parse(readDeploy(...parts)) as T;
/** Every document of a multi-document YAML file. */
export const yamlDocsOf = (...parts: string[]): unknown[] => parseAllDocuments(readDeploy(...parts)).map((d) => d.toJS() as unknown);

export interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export function alertRules(): AlertRule[] {
  const file = yamlOf<{ groups: { rules: AlertRule[] }[] }>('prometheus', 'alerts.yml');
  return file.groups.flatMap((g) => g.rules);
}

/** The anchors GitHub gives the headings of a Markdown file: lower case, punctuation dropped, spaces as dashes. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.+?)\s*#*$/.exec(line);
    if (heading) anchors.add(heading[1]!.toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-'));
  }
  return anchors;
}

/** promtool's path, or undefined when it is not installed. */
export function promtool(): string | undefined {
  const found = spawnSync('promtool', ['--version'], { encoding: 'utf8' });
  return found.status === 0 ? 'promtool' : undefined;
}
