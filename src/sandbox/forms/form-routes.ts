/**
 * Form data under /api/orgs/<organization_id>/forms (spec 02): list, count,
 * delete one, CSV export. The organization in the path must be the caller's;
 * only its submissions are seen. The list answers a bare array of
 * submissions (the wrapper is not shown in spec 02) with every match, and
 * deleting answers 200 with an empty body.
 *
 * The CSV export takes the filters in a JSON body plus `token`, which must be
 * a token of the organization in the path (401 when unknown or expired, 403
 * when of another organization) besides the Authorization header.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  FormSubmissionCountQuery,
  FormSubmissionCsvRequest,
  FormSubmissionListQuery,
} from '../../platform/schemas/form-submissions.ts';
import { validToken } from '../auth.ts';
import type { SandboxContext } from '../context.ts';
import { SandboxForbiddenError, SandboxNotFoundError } from '../errors.ts';
import { parsePayload } from '../http-errors.ts';
import { csvFilename, submissionsCsv } from './csv-export.ts';
import { formsStateOf, submissionView } from './forms-state.ts';
import { jsonObjectOf, selectSubmissions, type SubmissionFilter } from './submission-filters.ts';

interface OrgParams {
  organization_id: string;
}
const SubmissionParams = z.object({
  organization_id: z.string(),
  submission_id: z.string().regex(/^\d+$/, { error: 'Must be a submission ID (an integer).' }).transform(Number),
});

type QueryInput = z.output<typeof FormSubmissionListQuery> | z.output<typeof FormSubmissionCountQuery>;

function filterOfQuery(query: QueryInput): SubmissionFilter {
  return {
    interactionUuid: query.interactionUuid,
    url: query.url,
    from: query.from,
    to: query.to,
    jsonEq: jsonObjectOf(query.jsonEq),
    jsonLike: jsonObjectOf(query.jsonLike),
    orderDesc: 'orderDesc' in query ? query.orderDesc === 'true' : false,
  };
}

export function registerFormRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  const { state } = ctx;
  const forms = formsStateOf(state);

  app.get<{ Params: OrgParams }>('/data', async (request) => {
    const query = parsePayload(FormSubmissionListQuery, request.query);
    const all = forms.ofOrganization(request.params.organization_id);
    return selectSubmissions(all, filterOfQuery(query)).map(submissionView);
  });

  app.get<{ Params: OrgParams }>('/count', async (request) => {
    const query = parsePayload(FormSubmissionCountQuery, request.query);
    return { count: selectSubmissions(forms.ofOrganization(request.params.organization_id), filterOfQuery(query)).length };
  });

  app.delete('/data/:submission_id', async (request, reply) => {
    const params = parsePayload(SubmissionParams, request.params);
    const submission = forms.submissions.get(params.submission_id);
    if (submission === undefined || submission.organizationId !== params.organization_id) {
      throw new SandboxNotFoundError('Submission not found.');
    }
    forms.submissions.delete(submission.id);
    return reply.status(200).send();
  });

  app.post<{ Params: OrgParams }>('/csv', async (request, reply) => {
    const body = parsePayload(FormSubmissionCsvRequest, request.body);
    const bodyToken = validToken(state, body.token, 'the token field of the body');
    if (bodyToken.organizationId !== request.params.organization_id) {
      throw new SandboxForbiddenError('The token of the body has no access to this organization.');
    }
    const selected = selectSubmissions(forms.ofOrganization(request.params.organization_id), {
      ...body,
      jsonEq: jsonObjectOf(body.jsonEq),
      jsonLike: jsonObjectOf(body.jsonLike),
    });
    return reply
      .status(200)
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${csvFilename(body.interactionUuid)}"`)
      .send(submissionsCsv(selected));
  });
}
