/**
 * Every endpoint of spec 02 (builder, form data, workflow reporting, event
 * listing), as data; the interactions are in spec-02-interactions.ts. Paths are written exactly as documented, trailing
 * slashes included; the builder address serves /api/orgs, /api/v2,
 * /api/interactions, /api/v1/collections and /api/templates ({builder_url}),
 * the API address serves /api/reporting and /api/objectives ({api_url}).
 */
import { Collection, CollectionList, CollectionWrite } from '../schemas/builder-collections.ts';
import {
  EventRowsRequest,
  EventRowsResponse,
  EventTypesRequest,
  EventTypesResponse,
} from '../schemas/event-listing.ts';
import {
  FormSubmissionCount,
  FormSubmissionCountQuery,
  FormSubmissionCsvRequest,
  FormSubmissionList,
  FormSubmissionListQuery,
} from '../schemas/form-submissions.ts';
import {
  WorkflowInfo,
  WorkflowRows,
  WorkflowSourceDataDownloadRequest,
  WorkflowSourceDataRequest,
  WorkflowStepDownloadRequest,
  WorkflowStepRequest,
} from '../schemas/workflow-reporting.ts';
import { SPEC_02_INTERACTIONS } from './spec-02-interactions.ts';
import type { EndpointSpec } from './types.ts';

const FORMS = '/api/orgs/<organization_id>/forms';
const WORKFLOW = '/api/reporting/workflow/v1/orgs/<organization_id>/workflows/<workflow_id>';
const OBJECTIVES = '/api/objectives/v1/orgs/<organization_id>';

const formData = [
  {
    id: 'listFormSubmissions',
    method: 'GET',
    path: `${FORMS}/data`,
    upstream: 'builder',
    source: '02 Form data',
    summary: 'List the form submissions of an interaction.',
    query: FormSubmissionListQuery,
    response: FormSubmissionList,
  },
  {
    id: 'deleteFormSubmission',
    method: 'DELETE',
    path: `${FORMS}/data/<submission_id>`,
    upstream: 'builder',
    source: '02 Form data',
    summary: 'Delete one form submission; success is 200.',
  },
  {
    id: 'countFormSubmissions',
    method: 'GET',
    path: `${FORMS}/count`,
    upstream: 'builder',
    source: '02 Form data',
    summary: 'Count the matching form submissions.',
    query: FormSubmissionCountQuery,
    response: FormSubmissionCount,
  },
  {
    id: 'exportFormSubmissionsCsv',
    method: 'POST',
    path: `${FORMS}/csv`,
    upstream: 'builder',
    source: '02 Form data',
    summary: 'Export the matching form submissions as CSV (the access token also goes in the body).',
    body: FormSubmissionCsvRequest,
    download: true,
  },
] as const satisfies readonly EndpointSpec[];

const collections = [
  {
    id: 'listCollections',
    method: 'GET',
    path: '/api/v1/collections',
    upstream: 'builder',
    source: '02 Collections',
    summary: 'List the collections of the organization.',
    response: CollectionList,
  },
  {
    id: 'getCollection',
    method: 'GET',
    path: '/api/v1/collections/<collection_id>',
    upstream: 'builder',
    source: '02 Collections',
    summary: 'Read one collection.',
    response: Collection,
  },
  {
    id: 'createCollection',
    method: 'POST',
    path: '/api/v1/collections/',
    upstream: 'builder',
    source: '02 Collections',
    summary: 'Create a collection.',
    body: CollectionWrite,
    response: Collection,
  },
  {
    id: 'updateCollection',
    method: 'POST',
    path: '/api/v1/collections/<collection_id>',
    upstream: 'builder',
    source: '02 Collections',
    summary: 'Update a collection (name required).',
    body: CollectionWrite,
    response: Collection,
  },
  {
    id: 'deleteCollection',
    method: 'DELETE',
    path: '/api/v1/collections/<collection_id>',
    upstream: 'builder',
    source: '02 Collections',
    summary: 'Delete a collection; refused while it holds interactions or themes.',
  },
] as const satisfies readonly EndpointSpec[];

const workflowReporting = [
  {
    id: 'getWorkflowStepRows',
    method: 'POST',
    path: `${WORKFLOW}/step/<step_index>`,
    upstream: 'api',
    source: '02 Workflow reporting',
    summary: 'JSON rows of one workflow step (step_index is a positive integer).',
    body: WorkflowStepRequest,
    response: WorkflowRows,
  },
  {
    id: 'downloadWorkflowStepRows',
    method: 'POST',
    path: `${WORKFLOW}/step/<step_index>/download/`,
    upstream: 'api',
    source: '02 Workflow reporting',
    summary: 'The rows of one workflow step as a CSV or XLSX file.',
    body: WorkflowStepDownloadRequest,
    download: true,
  },
  {
    id: 'getWorkflowSourceData',
    method: 'POST',
    path: `${WORKFLOW}/source_data`,
    upstream: 'api',
    source: '02 Workflow reporting',
    summary: 'JSON rows of events not tied to a step (outer goal events).',
    body: WorkflowSourceDataRequest,
    response: WorkflowRows,
  },
  {
    id: 'downloadWorkflowSourceData',
    method: 'POST',
    path: `${WORKFLOW}/source_data/download/`,
    upstream: 'api',
    source: '02 Workflow reporting',
    summary: 'Events not tied to a step as a CSV or XLSX file.',
    body: WorkflowSourceDataDownloadRequest,
    download: true,
  },
  {
    id: 'getWorkflowInfo',
    method: 'GET',
    path: `${WORKFLOW}/info/`,
    upstream: 'api',
    source: '02 Workflow reporting',
    summary: 'Workflow metadata: type, name, publish state, first and last event dates.',
    response: WorkflowInfo,
  },
] as const satisfies readonly EndpointSpec[];

const eventListing = [
  {
    id: 'listEventTypes',
    method: 'POST',
    path: `${OBJECTIVES}/event-types`,
    upstream: 'api',
    source: '02 Event listing',
    summary: 'Catalog of the generic-event type masks (vendor, category, action) emitted.',
    body: EventTypesRequest,
    response: EventTypesResponse,
  },
  {
    id: 'listEvents',
    method: 'POST',
    path: `${OBJECTIVES}/events`,
    upstream: 'api',
    source: '02 Event listing',
    summary: 'Generic-event rows, at most a 2-day window and 250 rows a page.',
    body: EventRowsRequest,
    response: EventRowsResponse,
  },
  {
    id: 'listMessageEvents',
    method: 'POST',
    path: `${OBJECTIVES}/message-events`,
    upstream: 'api',
    source: '02 Event listing',
    summary: 'Chat message rows, at most a 2-day window and 250 rows a page.',
    body: EventRowsRequest,
    response: EventRowsResponse,
  },
] as const satisfies readonly EndpointSpec[];

/** The list with its literal types, for the typed client. */
export const SPEC_02_TYPED = [
  ...formData,
  ...SPEC_02_INTERACTIONS,
  ...collections,
  ...workflowReporting,
  ...eventListing,
] as const satisfies readonly EndpointSpec[];

export const SPEC_02_ENDPOINTS: readonly EndpointSpec[] = SPEC_02_TYPED;
