/**
 * The form data part of the control API (no auth): `POST /_sandbox/submissions`
 * adds what visitors submitted, one submission or `{"submissions": [...]}`.
 *
 * The organization is `organization_id`, else the interaction's (when the
 * builder knows `interactionUuid`), else the seeded one; `projectName`
 * defaults to the interaction's name. The time defaults to the sandbox clock.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { FormDataValue } from '../../platform/schemas/form-submissions.ts';
import { isoDateTime } from '../../platform/schemas/request-fields.ts';
import { builderStateOf } from '../builder/builder-state.ts';
import type { SandboxContext } from '../context.ts';
import { parsePayload } from '../http-errors.ts';
import { organizationFor } from '../routes/control-admin.ts';
import { instantOf } from '../time.ts';
import { formsStateOf, submissionView, type SubmissionRecord } from './forms-state.ts';

const SubmissionSeed = z.strictObject({
  organization_id: z.string().optional(),
  interactionUuid: z.uuid({ error: 'Must be the interaction UUID.' }),
  formdata: z.record(z.string(), FormDataValue).default({}),
  url: z.string().default('https://www.example.com/'),
  timestamp: isoDateTime.optional(),
  visitorId: z.string().min(1).optional(),
  projectName: z.string().optional(),
  triggerName: z.string().default('submit'),
  clickHistory: z.array(z.string()).default([]),
});
type SubmissionSeed = z.output<typeof SubmissionSeed>;
const SubmissionBatch = z.strictObject({ submissions: z.array(SubmissionSeed).min(1) });

export function registerFormControlRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  const { state, seed } = ctx;
  const forms = formsStateOf(state);
  const builder = builderStateOf(state);

  const add = (input: SubmissionSeed, path: string): SubmissionRecord => {
    const interaction = builder.interactions.get(input.interactionUuid);
    const organizationId = organizationFor(
      state,
      input.organization_id,
      interaction?.organizationId ?? seed.organization.id,
      `${path}organization_id`,
    ).id;
    return forms.add({
      organizationId,
      interactionUuid: input.interactionUuid,
      timestamp: input.timestamp === undefined ? state.now() : instantOf(input.timestamp),
      projectName: input.projectName ?? interaction?.name ?? 'Sandbox interaction',
      visitorId: input.visitorId ?? randomBytes(16).toString('hex'),
      formdata: input.formdata,
      triggerName: input.triggerName,
      clickHistory: input.clickHistory,
      url: input.url,
    });
  };

  app.post('/submissions', async (request, reply) => {
    const body = request.body;
    const isBatch = typeof body === 'object' && body !== null && 'submissions' in body;
    const added = isBatch
      ? parsePayload(SubmissionBatch, body).submissions.map((s, n) => add(s, `submissions.${n}.`))
      : [add(parsePayload(SubmissionSeed, body), '')];
    const results = added.map((s) => ({ ...submissionView(s), interactionUuid: s.interactionUuid, organization_id: s.organizationId }));
    return reply.status(201).send({ results });
  });
}
