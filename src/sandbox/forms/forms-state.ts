/**
 * The form data part of the sandbox world (spec 02, "Form submission"): what
 * visitors submitted through interaction forms, one instance per sandbox
 * (looked up with `formsStateOf`). Submissions are added through the control
 * API (`POST /_sandbox/submissions`), since visitors submit through the
 * interactions themselves, not through the builder interface.
 */
import type { SandboxState } from '../state.ts';

/** A formdata value: checkbox boolean; radio button, select and text input string. */
export type FormValue = boolean | string;

export interface SubmissionRecord {
  id: number;
  organizationId: string;
  interactionUuid: string;
  /** Epoch milliseconds. */
  timestamp: number;
  projectName: string;
  visitorId: string;
  formdata: Record<string, FormValue>;
  triggerName: string;
  clickHistory: string[];
  url: string;
}

export class FormsState {
  readonly submissions = new Map<number, SubmissionRecord>();
  private lastId = 0;

  add(submission: Omit<SubmissionRecord, 'id'>): SubmissionRecord {
    const record = { ...submission, id: ++this.lastId };
    this.submissions.set(record.id, record);
    return record;
  }

  ofOrganization(organizationId: string): SubmissionRecord[] {
    return [...this.submissions.values()].filter((s) => s.organizationId === organizationId);
  }
}

const states = new WeakMap<SandboxState, FormsState>();

/** The form data of one sandbox (created on first use). */
export function formsStateOf(state: SandboxState): FormsState {
  let forms = states.get(state);
  if (forms === undefined) {
    forms = new FormsState();
    states.set(state, forms);
  }
  return forms;
}

/** The submission as the list shows it. */
export function submissionView(s: SubmissionRecord) {
  return {
    id: s.id,
    timestamp: new Date(s.timestamp).toISOString(),
    projectName: s.projectName,
    visitorId: s.visitorId,
    roomId: '',
    formdata: { ...s.formdata },
    triggerName: s.triggerName,
    clickHistory: [...s.clickHistory],
    url: s.url,
  };
}
