/**
 * The sandbox's minimal login page: one button per active sandbox user (no
 * passwords — it is a sandbox). The form posts the user and the original
 * authorization request to POST /authorize/login, which signs the user in and
 * answers with the authentication response redirect.
 */
import type { Organization, User } from '../model.ts';
import type { SandboxState } from '../state.ts';
import type { AppRecord } from './apps.ts';
import { escapeHtml, page } from './html.ts';

export const LOGIN_PATH = '/authorize/login';

function isActiveUser(user: User): boolean {
  return user.profile?.deletedAt === undefined || user.profile.deletedAt === null;
}

/** A user by ID or (case-insensitively) e-mail address, if active. */
export function findActiveUser(state: SandboxState, idOrEmail: string): User | undefined {
  const byId = state.users.get(idOrEmail);
  if (byId !== undefined) return isActiveUser(byId) ? byId : undefined;
  const email = idOrEmail.toLowerCase();
  for (const user of state.users.values()) {
    if (typeof user.email === 'string' && user.email.toLowerCase() === email && isActiveUser(user)) return user;
  }
  return undefined;
}

export function loginPage(state: SandboxState, app: AppRecord, rawQuery: string, problem?: string): string {
  const buttons = [...state.users.values()].filter(isActiveUser).map((user) => {
    const org: Organization | undefined = state.organizations.get(user.organizationId);
    const email = typeof user.email === 'string' ? ` &lt;${escapeHtml(user.email)}&gt;` : '';
    return `<button type="submit" name="user_id" value="${escapeHtml(user.id)}">${escapeHtml(user.name)}${email}
<span class="org">· ${escapeHtml(org?.name ?? user.organizationId)}</span></button>`;
  });
  const error = problem === undefined ? '' : `<p role="alert" id="problem">${escapeHtml(problem)}</p>`;
  return page(
    'Sign in · platform sandbox',
    `<h1>Sign in</h1>
<p>to <strong id="app-name">${escapeHtml(app.name)}</strong> as a sandbox user:</p>${error}
<form method="post" action="${LOGIN_PATH}" id="login">
<input type="hidden" name="request" value="${escapeHtml(rawQuery)}">
${buttons.join('\n')}
</form>`,
  );
}
