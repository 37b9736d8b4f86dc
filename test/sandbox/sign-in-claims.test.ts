/**
 * The claims the profile and email scopes add to ID tokens (spec 01, "ID
 * token"), for a user made through the users interface: given_name and
 * family_name are the user's first_name and last_name, name the full_name,
 * picture the URL the avatar is served at (only once there is one), email and
 * email_verified the e-mail address. A deleted user can no longer sign in.
 */
import { describe, expect, it } from 'vitest';
import { ImplicitAuthSuccess } from '../../src/platform/schemas/sign-in.ts';
import { authorize, implicitParams, redirected, registerApp, verifyIdToken } from './sign-in-support.ts';
import { startTestSandbox } from './support.ts';

/** The smallest valid PNG (1×1, transparent). */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

describe('sandbox sign-in: profile and email claims', () => {
  it('reflect the user resource: names, e-mail, avatar URL; deleted users cannot sign in', async () => {
    const sb = await startTestSandbox();
    const app = await registerApp(sb);
    const users = `/api/v5/orgs/${sb.organizationId}/users`;
    const created = await sb.call('POST', users, { email: 'grace@example.test', first_name: 'Grace', last_name: 'Hopper Jr' });
    expect(created.status).toBe(200);
    const userId = created.body.id as string;

    const signIn = async (loginHint: string) => {
      const res = await authorize(sb, implicitParams(app, { response_type: 'id_token', scope: 'openid profile email', login_hint: loginHint }));
      return redirected(res.location).hash;
    };
    // login_hint takes the e-mail address too, in any case.
    const before = await verifyIdToken(sb, ImplicitAuthSuccess.parse(await signIn('GRACE@example.test')).id_token, app.client_id);
    expect(before).toMatchObject({
      sub: userId,
      name: created.body.full_name,
      given_name: 'Grace',
      family_name: 'Hopper Jr',
      email: 'grace@example.test',
      email_verified: true,
    });
    expect(before.picture).toBeUndefined();

    const form = new FormData();
    form.append('file', new Blob([PNG], { type: 'image/png' }), 'grace.png');
    const upload = await fetch(`${sb.url}${users}/${userId}/avatar`, { method: 'POST', headers: { authorization: `Token ${sb.token}` }, body: form });
    expect(upload.status).toBe(201);
    const avatar = (await upload.json()) as { url: string };
    const after = await verifyIdToken(sb, ImplicitAuthSuccess.parse(await signIn(userId)).id_token, app.client_id);
    expect(after.picture).toBe(avatar.url);
    const served = await fetch(after.picture as string);
    expect(served.status).toBe(200);
    expect(Buffer.from(await served.arrayBuffer())).toEqual(PNG);

    expect((await sb.call('DELETE', `${users}/${userId}`)).status).toBe(204);
    expect(await signIn(userId)).toMatchObject({ error: 'invalid_request', error_description: expect.stringMatching(/login_hint/) });
  });
});
