/** Spec 03 as data: SPEC_03_ENDPOINTS against the document's endpoint list. */
import { describe, expect, it } from 'vitest';
import { SPEC_03_ENDPOINTS } from '../../../src/platform/endpoints/spec-03.ts';
import { endpoint, paths } from './spec-03-support.ts';

/** Every endpoint of /work/shared/spec/03-channel-and-unified-messaging.md, copied by hand. */
const CM = '/api/pub/v1/orgs/<organization_id>';
const PUB = '/api/pub/public/v1/orgs/<organization_id>/channels/<channel_id>/conference';
const UM = '/api/v5/orgs/<organization_id>/unified_messaging';
const DOCUMENTED = [
  // Channel messaging
  `GET ${CM}/channels`,
  `POST ${CM}/channels`,
  `GET ${CM}/channels/<channel_id>`,
  `PUT ${CM}/channels/<channel_id>`,
  `PATCH ${CM}/channels/<channel_id>`,
  `GET ${CM}/users/<user_id>/joined-channels`,
  `GET ${CM}/users/<user_id>/joined-channels/<channel_id>`,
  `GET ${CM}/users/<user_id>/dm-channels`,
  `POST ${CM}/users/<user_id>/dm-channels`,
  `GET ${CM}/users/<user_id>/dm-channels/<dm_channel_id>`,
  `GET ${CM}/channels/<channel_id>/messages`,
  `POST ${CM}/channels/<channel_id>/messages`,
  `GET ${CM}/channels/<channel_id>/messages/<message_id>`,
  `PATCH ${CM}/channels/<channel_id>/messages/<message_id>`,
  `GET ${CM}/channels/<channel_id>/members`,
  `POST ${CM}/channels/<channel_id>/members`,
  `GET ${CM}/channels/<channel_id>/members/<member_id>`,
  `PATCH ${CM}/channels/<channel_id>/members/<member_id>`,
  `GET ${CM}/channels/<channel_id>/members/<member_id>/notification_settings`,
  `PATCH ${CM}/channels/<channel_id>/members/<member_id>/notification_settings`,
  `POST ${CM}/channels/<channel_id>/conference/create_stream`,
  `GET ${CM}/channels/<channel_id>/conference/recorded_streams`,
  `GET ${CM}/conference/streams`,
  // Public live stream
  `GET ${PUB}/stream_status`,
  `GET ${PUB}/stream_viewer_count`,
  // Unified messaging
  `POST ${UM}`,
  `GET ${UM}`,
  `GET ${UM}/<config_id>`,
  `PUT ${UM}/<config_id>`,
  `PATCH ${UM}/<config_id>`,
  `DELETE ${UM}/<config_id>`,
  `POST ${UM}/<config_id>/messages`,
  `POST ${UM}/<config_id>/close_session`,
];

describe('SPEC_03_ENDPOINTS', () => {
  it('has unique ids and unique method + path', () => {
    const ids = SPEC_03_ENDPOINTS.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    const routes = SPEC_03_ENDPOINTS.map((e) => `${e.method} ${e.path}`);
    expect(new Set(routes).size).toBe(routes.length);
  });

  it('lists exactly the endpoints of the document', () => {
    expect(new Set(DOCUMENTED).size).toBe(DOCUMENTED.length);
    const listed = SPEC_03_ENDPOINTS.map((e) => `${e.method} ${e.path}`);
    expect([...listed].sort()).toEqual([...DOCUMENTED].sort());
    expect(SPEC_03_ENDPOINTS).toHaveLength(33);
  });

  it('uses lowerCamelCase ids, upstream api, a source and <param> placeholders', () => {
    for (const e of SPEC_03_ENDPOINTS) {
      expect(e.id).toMatch(/^[a-z][a-zA-Z0-9]*$/);
      expect(e.upstream).toBe('api');
      expect(e.source).toMatch(/^03 /);
      expect(e.summary.length).toBeGreaterThan(0);
      for (const segment of e.path.split('/').slice(1)) {
        expect(segment).toMatch(/^(<[a-z_]+>|[a-z0-9_-]+)$/);
      }
    }
  });

  it('checks the list query of channel configurations', () => {
    const query = endpoint('listChannelConfigurations').query;
    expect(query?.safeParse({ ordering: 'modified_at', cursor: 'abc' }).success).toBe(true);
    expect(paths(query!.safeParse({ ordering: 'name' }))).toEqual(['ordering']);
  });

  it('has no response schema for the 204 of DELETE', () => {
    expect(endpoint('deleteChannelConfiguration').response).toBeUndefined();
  });
});
