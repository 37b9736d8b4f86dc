/**
 * Shared by the spec 02 schema suites: issue and parse helpers, and one
 * documented object of each kind (form submission, interactions, collection,
 * workflow info, raw workflow row, workflow step payload).
 */
import type { z } from 'zod';

export interface Issue {
  path: string;
  code: string;
  message: string;
  keys?: string[];
}

export function issues(schema: z.ZodType, value: unknown): Issue[] {
  const result = schema.safeParse(value);
  if (result.success) return [];
  return result.error.issues.map((i) => ({
    path: i.path.map(String).join('.'),
    code: i.code,
    message: i.message,
    ...('keys' in i ? { keys: i.keys } : {}),
  }));
}

export function parsed<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new Error(JSON.stringify(result.error.issues));
  return result.data;
}

// ─── Documented objects ─────────────────────────────────────────────────────

export const ORG = '7f9e0c2a-3b4d-4e5f-8a6b-1c2d3e4f5a6b';
export const USER = '0b1c2d3e-4f5a-4b6c-9d7e-8f9a0b1c2d3e';
export const INTERACTION_UUID = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d';

export const submission = {
  id: 101,
  timestamp: '2024-05-01T10:00:00Z',
  projectName: 'Spring campaign',
  visitorId: 'v-123',
  roomId: '',
  formdata: { email: 'a@example.com', newsletter: true, size: 'M' },
  triggerName: 'Submit button',
  clickHistory: ['Open', 'Next'],
  url: 'https://shop.example.com/',
};

export const listItem = {
  id: 'b7c8d9e0-f1a2-4b3c-8d4e-5f6a7b8c9d0e',
  legacy_id: 42,
  collection_id: 7,
  organization_id: ORG,
  created_at: '2024-04-01T08:00:00Z',
  name: 'Spring form',
  notes: '',
  author_company_id: ORG,
  author_user_id: USER,
  published_asset_id: null,
  published_at: null,
  published_name: null,
  theme_id: 3,
  updated_at: '2024-04-02T08:00:00Z',
  updated_by_user_company_id: ORG,
  updated_by_user_id: USER,
};

export const single = {
  ...listItem,
  draft_data: { views: [] },
  draft_data_version: 5,
  preview_canvas_rotated: false,
  preview_canvas_size_type: 'mobile1',
  editor_canvas_size_type: 'desktop2',
  preview_url: null,
  published_data_version: 4,
  flow_mode: null,
};

export const legacy = {
  uid: 42,
  name: 'Spring form',
  notes: '',
  organizationUid: ORG,
  workspaceUid: 7,
  creatorUserId: USER,
  creatorUserOrganizationUid: ORG,
  createdDate: '2024-04-01T08:00:00Z',
  updatedDate: '2024-04-02T08:00:00.123456Z',
  updatedUserId: USER,
  updatedUserOrganizationUid: ORG,
  themeId: 3,
  templateName: null,
  publishedAssetUid: null,
  publishedDate: null,
  isPublished: false,
  interactionUuid: INTERACTION_UUID,
  tag: '2024-04-02T08:00:00.123456Z',
  project: { views: [{ name: 'Start' }] },
  jsonVersion: 2,
  editorCanvasSizeType: 'desktop1',
  previewCanvasSizeType: 'mobile2',
  previewUrl: 'https://preview.example.com/42',
  previewCanvasRotated: true,
};

export const collection = {
  id: 7,
  name: 'Campaigns',
  dataRetentionDays: null,
  dataDisposalEnabled: false,
  organizationUid: ORG,
  sharedWithPartnerOrganizationUid: null,
  sharedWithPartnerReadwrite: false,
  sharedWithSupport: false,
};

export const workflowInfo = {
  id: 'c0d1e2f3-a4b5-4c6d-8e7f-9a0b1c2d3e4f',
  org_id: ORG,
  type: 'interaction',
  name: 'Spring funnel',
  description: 'Visitors who saw the spring form',
  modified_at: '2024-04-03T09:00:00Z',
  is_published: true,
  start_date: '2024-04-04',
  end_date: '2024-05-01',
};

export const rawRow = {
  timestamp: '2024-05-01T10:00:00Z',
  source: 'interaction',
  event_version: 1,
  organization_id: ORG,
  organization_name: 'Example',
  category: 'goal',
  action: 'trigger',
  label: 'd4e5f6a7-b8c9-4d0e-8f1a-2b3c4d5e6f7a',
  vendor: null,
  properties: ['room_id=e1f2a3b4-c5d6-4e7f-8a9b-0c1d2e3f4a5b'],
  dim1: 'https://shop.example.com/',
  dim2: 'Shop',
  dim3: null,
  dim4: null,
  dim5: null,
  visitor_id: 'v-123',
  session_id: 's-1',
  user_id: null,
  partner_organization_ids: [],
  browser_name: 'Firefox',
  browser_version: '125',
  device_screen_height: '1080',
  device_screen_width: '1920',
  device_type: 'desktop',
  geo_city: 'Helsinki',
  geo_country: 'FI',
  ip_organization: null,
  os_name: 'Linux',
  os_version: null,
  value: null,
};

export const stepPayload = {
  filters: [{ property: 'action', values: ['view'] }],
  interval: { start: '2024-05-01T00:00:00Z', end: '2024-05-02T00:00:00Z' },
  step_data: [{}, { actions: ['view-1', 'view-2'] }],
  limit: 100,
};
