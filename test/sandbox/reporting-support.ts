/**
 * Helpers of the workflow reporting suites: a sandbox with one seeded
 * workflow, the paths of its endpoints, a payload with a wide interval, and
 * raw (binary) calls for the downloads.
 */
import { request } from 'undici';
import { startTestSandbox, type TestSandbox } from './support.ts';

export const DAY_START = '2026-03-01T00:00:00Z';
export const DAY_END = '2026-03-02T00:00:00Z';
/** A payload asking for every event of 2026-03-01. */
export const wholeDay = () => ({ filters: [] as unknown[], interval: { start: DAY_START, end: DAY_END } });

export interface WorkflowJson {
  id: string;
  org_id: string;
  type: string;
  steps: number;
}

export interface ReportingSandbox extends TestSandbox {
  workflow: WorkflowJson;
  /** /api/reporting/workflow/v1/orgs/<org>/workflows/<workflow> */
  base: string;
  createWorkflow(fields?: Record<string, unknown>): Promise<WorkflowJson>;
  seedEvents(body: Record<string, unknown>): Promise<string[]>;
  /** A raw POST: status, headers and the body bytes. */
  download(path: string, body: unknown): Promise<{ status: number; headers: Record<string, unknown>; bytes: Buffer }>;
}

export const workflowBase = (organizationId: string, workflowId: string) =>
  `/api/reporting/workflow/v1/orgs/${organizationId}/workflows/${workflowId}`;

export async function startReportingSandbox(workflowFields: Record<string, unknown> = {}): Promise<ReportingSandbox> {
  const sb = await startTestSandbox();
  const createWorkflow = async (fields: Record<string, unknown> = {}) => {
    const res = await sb.call('POST', '/_sandbox/workflows', fields);
    if (res.status !== 201) throw new Error(`creating a workflow answered ${res.status}: ${res.text}`);
    return res.body as WorkflowJson;
  };
  const seedEvents = async (body: Record<string, unknown>) => {
    const res = await sb.call('POST', '/_sandbox/workflow-events', body);
    if (res.status !== 201) throw new Error(`seeding events answered ${res.status}: ${res.text}`);
    return res.body.ids as string[];
  };
  const download: ReportingSandbox['download'] = async (path, body) => {
    const res = await request(`${sb.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Token ${sb.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.statusCode, headers: res.headers, bytes: Buffer.from(await res.body.arrayBuffer()) };
  };
  const workflow = await createWorkflow(workflowFields);
  return { ...sb, workflow, base: workflowBase(sb.organizationId, workflow.id), createWorkflow, seedEvents, download };
}
