/**
 * The CSV export of form submissions (spec 02): one header row, then one row
 * per submission with every column; a formdata value is empty where the input
 * did not exist when that visitor submitted.
 *
 * Columns: the submission fields (id, timestamp, projectName, visitorId,
 * roomId, url, triggerName, clickHistory), then one per formdata key in the
 * order the keys first appear in the exported rows. A key that is also the
 * name of a submission field gets the column `formdata.<key>`. Checkboxes
 * are `true`/`false`; clickHistory is the clicked names joined with ` > `.
 */
import { stringify } from 'csv-stringify/sync';
import type { SubmissionRecord } from './forms-state.ts';

const FIXED_COLUMNS = ['id', 'timestamp', 'projectName', 'visitorId', 'roomId', 'url', 'triggerName', 'clickHistory'] as const;
const FIXED = new Set<string>(FIXED_COLUMNS);

function fixedValues(s: SubmissionRecord): string[] {
  return [
    String(s.id),
    new Date(s.timestamp).toISOString(),
    s.projectName,
    s.visitorId,
    '',
    s.url,
    s.triggerName,
    s.clickHistory.join(' > '),
  ];
}

export function submissionsCsv(submissions: readonly SubmissionRecord[]): string {
  const keys: string[] = [];
  const seen = new Set<string>();
  for (const s of submissions) {
    for (const key of Object.keys(s.formdata)) {
      if (!seen.has(key)) {
        seen.add(key);
        keys.push(key);
      }
    }
  }
  const header = [...FIXED_COLUMNS, ...keys.map((k) => (FIXED.has(k) ? `formdata.${k}` : k))];
  const rows = submissions.map((s) => [
    ...fixedValues(s),
    ...keys.map((k) => (Object.hasOwn(s.formdata, k) ? String(s.formdata[k]) : '')),
  ]);
  return stringify([header, ...rows]);
}

/** `form-data-<interactionUuid>.csv`. */
export const csvFilename = (interactionUuid: string) => `form-data-${interactionUuid}.csv`;
