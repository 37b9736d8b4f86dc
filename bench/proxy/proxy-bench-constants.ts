/** What the proxy benchmark's processes share: the organisation, the gateway key and the paths loaded. */
import { createHash } from 'node:crypto';

export const ORG = '6f1c1f1e-8d1a-4a8e-9a57-0d4f1b0c2a10';
export const ROOM = '0b0c2a10-8d1a-4a8e-9a57-6f1c1f1e0d4f';
export const KEY = 'bench-proxy-key-0123456789abcdef';
export const KEY_SHA256 = createHash('sha256').update(KEY).digest('hex');
export const PLATFORM_TOKEN = 'platform-token';
/** The documented GET loaded (listChats): a ~1 KB JSON page. */
export const CHATS_PATH = `/api/v5/orgs/${ORG}/rooms/${ROOM}/chats`;
/** A documented download (downloadWorkflowSourceData, a POST with a checked JSON body). */
export const DOWNLOAD_PATH = `/api/reporting/workflow/v1/orgs/${ORG}/workflows/wf-1/source_data/download/`;
/** A documented multipart upload (uploadOrgUserAvatar). */
export const UPLOAD_PATH = `/api/v5/orgs/${ORG}/users/u-1/avatar`;
