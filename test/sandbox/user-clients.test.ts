/**
 * User clients of spec 01 over real HTTP, with the sandbox clock: the User
 * client rows of the state table (register, expire, refresh re-registers an
 * expired or unknown client, DELETE ends presence at once), the computed
 * fields (presence_expires_at, is_about_to_expire) and every status.
 */
import { describe, expect, it } from 'vitest';
import { PRESENCE_EXPIRES_IN_MAX, UserClient, UserClientPage } from '../../src/platform/schemas/users.ts';
import { startSpec01Sandbox, type Spec01Sandbox, type SeededUser } from './spec01-support.ts';

const BROWSER_SECONDS = 60;

async function withUser(): Promise<{ sb: Spec01Sandbox; uma: SeededUser; clients: string }> {
  const sb = await startSpec01Sandbox();
  const uma = await sb.addUser({}, { permissions: { users: false } });
  return { sb, uma, clients: sb.org(`/users/${uma.id}/clients`) };
}

const advance = (sb: Spec01Sandbox, seconds: number) => sb.call('POST', '/_sandbox/clock', { advance_seconds: seconds });
const isPresent = async (sb: Spec01Sandbox, user: SeededUser) => (await sb.as(user, 'GET', '/api/v5/users/me')).body.is_present;

describe('user clients', () => {
  it('not registered → registered and present by POST (201): expiry computed, is_about_to_expire false', async () => {
    const { sb, uma, clients } = await withUser();
    expect(await isPresent(sb, uma)).toBe(false);
    const now = Date.parse((await sb.info()).now);
    const res = await sb.as(uma, 'POST', clients, { presence_expires_in: BROWSER_SECONDS });
    expect(res.status).toBe(201);
    const client = UserClient.parse(res.body);
    expect(client).toMatchObject({ presence_expires_in: BROWSER_SECONDS, is_about_to_expire: false });
    const expiresIn = Date.parse(client.presence_expires_at!) - now;
    expect(expiresIn).toBeGreaterThanOrEqual(BROWSER_SECONDS * 1000);
    expect(expiresIn).toBeLessThan(BROWSER_SECONDS * 1000 + 5000);
    expect(await isPresent(sb, uma)).toBe(true);
  });

  it('registered → about to expire → expired when presence_expires_at passes without refresh; the user is no longer present', async () => {
    const { sb, uma, clients } = await withUser();
    const { id } = (await sb.as(uma, 'POST', clients, { presence_expires_in: BROWSER_SECONDS })).body;
    const find = async () => (await sb.as(uma, 'GET', clients)).body.results.find((c: { id: string }) => c.id === id);
    await advance(sb, 20);
    expect((await find()).is_about_to_expire).toBe(false);
    await advance(sb, 25);
    expect((await find()).is_about_to_expire).toBe(true);
    expect(await isPresent(sb, uma)).toBe(true);
    await advance(sb, 16);
    const expired = await find();
    expect(Date.parse(expired.presence_expires_at)).toBeLessThan(Date.parse((await sb.info()).now));
    expect(await isPresent(sb, uma)).toBe(false);
    expect((await sb.as(uma, 'GET', '/api/v5/users/me')).body.is_online).toBe(false);
  });

  it('the user stays present while another client is present', async () => {
    const { sb, uma, clients } = await withUser();
    await sb.as(uma, 'POST', clients, { presence_expires_in: 30 });
    await sb.as(uma, 'POST', clients, { presence_expires_in: 300 });
    await advance(sb, 31);
    expect(await isPresent(sb, uma)).toBe(true);
    await advance(sb, 270);
    expect(await isPresent(sb, uma)).toBe(false);
  });

  it('refresh with PATCH or PUT: the latest presence_expires_in applies from now, is_about_to_expire false again', async () => {
    const { sb, uma, clients } = await withUser();
    const { id, created_at } = (await sb.as(uma, 'POST', clients, { presence_expires_in: BROWSER_SECONDS })).body;
    await advance(sb, 50);
    const patched = await sb.as(uma, 'PATCH', `${clients}/${id}`, { presence_expires_in: 120 });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id, presence_expires_in: 120, is_about_to_expire: false, created_at });
    await advance(sb, 100);
    expect(await isPresent(sb, uma)).toBe(true);
    const put = await sb.as(uma, 'PUT', `${clients}/${id}`, { presence_expires_in: 30 });
    expect(put.body.presence_expires_in).toBe(30);
    await advance(sb, 31);
    expect(await isPresent(sb, uma)).toBe(false);
  });

  it('expired or unregistered → registered again by refresh with the old (or a new) client id; the user becomes present', async () => {
    const { sb, uma, clients } = await withUser();
    const { id } = (await sb.as(uma, 'POST', clients, { presence_expires_in: 10 })).body;
    await advance(sb, 11);
    expect(await isPresent(sb, uma)).toBe(false);
    const again = await sb.as(uma, 'PUT', `${clients}/${id}`, { presence_expires_in: BROWSER_SECONDS });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id, is_about_to_expire: false });
    expect(await isPresent(sb, uma)).toBe(true);

    const kept = crypto.randomUUID();
    const fresh = await sb.as(uma, 'PATCH', `${clients}/${kept}`, { presence_expires_in: BROWSER_SECONDS });
    expect(fresh.status).toBe(200);
    expect(fresh.body.id).toBe(kept);
    const listed = UserClientPage.parse((await sb.as(uma, 'GET', clients)).body);
    expect(listed.results.map((c) => c.id).sort()).toEqual([id, kept].sort());
  });

  it('registered → removed by DELETE (204): presence ends immediately; deleting again is 404', async () => {
    const { sb, uma, clients } = await withUser();
    const { id } = (await sb.as(uma, 'POST', clients, { presence_expires_in: 3600 })).body;
    expect(await isPresent(sb, uma)).toBe(true);
    const res = await sb.as(uma, 'DELETE', `${clients}/${id}`);
    expect(res.status).toBe(204);
    expect(await isPresent(sb, uma)).toBe(false);
    expect((await sb.as(uma, 'GET', clients)).body.results).toEqual([]);
    expect((await sb.as(uma, 'DELETE', `${clients}/${id}`)).status).toBe(404);
  });

  it('400 x2: presence_expires_in missing; wrong format (not a positive integer, malformed JSON, unknown field)', async () => {
    const { sb, uma, clients } = await withUser();
    const { id } = (await sb.as(uma, 'POST', clients, { presence_expires_in: 60 })).body;
    for (const [method, path] of [['POST', clients], ['PATCH', `${clients}/${id}`], ['PUT', `${clients}/${id}`]] as const) {
      const missing = await sb.as(uma, method, path, {});
      expect(missing.status).toBe(400);
      expect(missing.body.errors.presence_expires_in).toEqual(['This field is required.']);
      for (const body of [{ presence_expires_in: 'sixty' }, { presence_expires_in: 0 }, { presence_expires_in: 1.5 }, { presence_expires_in: 60, colour: 1 }]) {
        expect((await sb.as(uma, method, path, body)).status, `${method} ${JSON.stringify(body)}`).toBe(400);
      }
      expect((await sb.as(uma, method, path, undefined, { raw: '{' })).status).toBe(400);
    }
  });

  it('400 naming presence_expires_in over ten years (no client kept); the listing keeps working', async () => {
    const { sb, uma, clients } = await withUser();
    const { id } = (await sb.as(uma, 'POST', clients, { presence_expires_in: 60 })).body;
    const max = PRESENCE_EXPIRES_IN_MAX;
    for (const value of [max + 1, 8.64e12, 1e300]) {
      for (const [method, path] of [['POST', clients], ['PATCH', `${clients}/${id}`], ['PUT', `${clients}/${id}`], ['PUT', `${clients}/${crypto.randomUUID()}`]] as const) {
        const res = await sb.as(uma, method, path, { presence_expires_in: value });
        expect(res.status, `${method} ${value}`).toBe(400);
        expect(Object.keys(res.body.errors)).toEqual(['presence_expires_in']);
      }
    }
    const listing = await sb.as(uma, 'GET', clients);
    expect(listing.status).toBe(200);
    expect(UserClientPage.parse(listing.body).results.map((c) => [c.id, c.presence_expires_in])).toEqual([[id, 60]]);
    const longest = await sb.as(uma, 'POST', clients, { presence_expires_in: max });
    expect(longest.status).toBe(201);
    expect(Date.parse(longest.body.presence_expires_at) - Date.parse(longest.body.created_at)).toBe(max * 1000);
    expect((await sb.as(uma, 'GET', clients)).status).toBe(200);
  });

  it('401 | 403 subscription, organization, users permission (managing another user’s clients) | 404 user not found', async () => {
    const { sb, uma, clients } = await withUser();
    const { id } = (await sb.as(uma, 'POST', clients, { presence_expires_in: 60 })).body;
    const calls = [
      ['POST', clients, { presence_expires_in: 60 }],
      ['GET', clients, undefined],
      ['PATCH', `${clients}/${id}`, { presence_expires_in: 60 }],
      ['PUT', `${clients}/${id}`, { presence_expires_in: 60 }],
      ['DELETE', `${clients}/${id}`, undefined],
    ] as const;
    const lapsed = await sb.addUser({}, { permissions: { subscription: false } });
    const outsider = await sb.addUser({}, { permissions: { organization_access: false } });
    const colleague = await sb.addUser({}, { permissions: { users: false } });
    for (const [method, path, body] of calls) {
      expect((await sb.call(method, path, body, { authorization: null })).status, `${method} 401`).toBe(401);
      for (const user of [lapsed, outsider, colleague]) expect((await sb.as(user, method, path, body)).status, method).toBe(403);
    }
    // A manager (users permission) manages other users' clients.
    expect((await sb.call('GET', clients)).body.results).toHaveLength(1);
    for (const userId of [crypto.randomUUID(), (await sb.addUser({}, { organizationId: sb.foreignOrganizationId })).id]) {
      expect((await sb.call('POST', sb.org(`/users/${userId}/clients`), { presence_expires_in: 60 })).status).toBe(404);
      expect((await sb.call('GET', sb.org(`/users/${userId}/clients`))).status).toBe(404);
    }
    expect((await sb.as(uma, 'PATCH', `${clients}/not-a-uuid`, { presence_expires_in: 60 })).status).toBe(404);
  });
});
