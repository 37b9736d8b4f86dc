/**
 * The control API's directory side, under /_sandbox (no auth): organizations
 * (private history, the encrypted-chats key pair), users with their spec 01
 * fields and an API token, and the permissions a token carries.
 *
 * The organization's private key is answered once, when encryption is
 * enabled, and never kept: the sandbox stores only the public key.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { CreateUserRequest } from '../../platform/schemas/users.ts';
import { generateOrganizationKeys, toOneLineKey } from '../chat-encryption.ts';
import type { SandboxContext } from '../context.ts';
import { SandboxNotFoundError } from '../errors.ts';
import { parsePayload } from '../http-errors.ts';
import type { ApiToken, Organization, TokenPermissions } from '../model.ts';
import { permissionsOf } from '../permissions.ts';
import type { SandboxState } from '../state.ts';
import { createUser } from '../users/accounts.ts';
import { userView } from '../users/user-view.ts';
import { avatarUrlFor } from '../users/avatars.ts';

const PermissionsBody = z.strictObject({
  subscription: z.boolean().optional(),
  organization_access: z.boolean().optional(),
  reports: z.boolean().optional(),
  users: z.boolean().optional(),
});
const OrganizationBody = z
  .strictObject({ name: z.string().trim().min(1).default('Organization'), private_history: z.boolean().default(false) })
  .default({ name: 'Organization', private_history: false });
const OrganizationPatch = z.strictObject({ name: z.string().trim().min(1).optional(), private_history: z.boolean().optional() });
const SeedUserBody = z.strictObject({
  user: z.unknown(),
  scopes: z.array(z.string()).default([]),
  permissions: PermissionsBody.default({}),
});

function withPermissions(current: TokenPermissions, body: z.output<typeof PermissionsBody>): TokenPermissions {
  return {
    subscription: body.subscription ?? current.subscription,
    organizationAccess: body.organization_access ?? current.organizationAccess,
    reports: body.reports ?? current.reports,
    users: body.users ?? current.users,
  };
}

function permissionsView(token: ApiToken) {
  const p = permissionsOf(token);
  return { subscription: p.subscription, organization_access: p.organizationAccess, reports: p.reports, users: p.users };
}

function organizationView(org: Organization) {
  return { id: org.id, name: org.name, private_history: org.privateHistory ?? false, encryption_enabled: org.publicKeyPem !== undefined };
}

function requireOrganization(state: SandboxState, id: string): Organization {
  const org = state.organizations.get(id);
  if (org === undefined) throw new SandboxNotFoundError('Organization not found.');
  return org;
}

interface OrgParams {
  organization_id: string;
}

export function registerControlDirectoryRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  const { state } = ctx;

  /** A new organization with one room; users come from POST …/users. */
  app.post('/organizations', async (request, reply) => {
    const body = parsePayload(OrganizationBody, request.body);
    const org = state.addOrganization(body.name);
    org.privateHistory = body.private_history;
    const room = state.addRoom(org.id, 'Support');
    return reply.status(201).send({ ...organizationView(org), room_id: room.id });
  });

  app.patch<{ Params: OrgParams }>('/organizations/:organization_id', async (request) => {
    const org = requireOrganization(state, request.params.organization_id);
    const body = parsePayload(OrganizationPatch, request.body);
    if (body.name !== undefined) org.name = body.name;
    if (body.private_history !== undefined) org.privateHistory = body.private_history;
    return organizationView(org);
  });

  /** Enables encrypted chats: a new RSA key pair; the private key is in this answer only. */
  app.post<{ Params: OrgParams }>('/organizations/:organization_id/encryption', async (request, reply) => {
    const org = requireOrganization(state, request.params.organization_id);
    const keys = generateOrganizationKeys();
    org.publicKeyPem = keys.publicKeyPem;
    return reply.status(201).send({
      public_key: keys.publicKeyPem,
      private_key: keys.privateKeyPem,
      /** The X-PRIVATE-KEY form: line breaks written as backslash + n. */
      private_key_one_line: toOneLineKey(keys.privateKeyPem),
    });
  });

  /** A user with the spec 01 fields (validated as the create endpoint does) and an API token with the given permissions. */
  app.post<{ Params: OrgParams }>('/organizations/:organization_id/users', async (request, reply) => {
    const org = requireOrganization(state, request.params.organization_id);
    const body = parsePayload(SeedUserBody, request.body);
    const user = createUser(state, org.id, parsePayload(CreateUserRequest, body.user));
    const token = state.issueToken(org.id, user.id, body.scopes);
    token.permissions = withPermissions(permissionsOf(token), body.permissions);
    return reply.status(201).send({
      user: userView(state, user, avatarUrlFor(request)),
      token: token.token,
      token_type: 'Token',
      permissions: permissionsView(token),
    });
  });

  /** Sets what a token may do (omitted permissions keep their values). */
  app.put<{ Params: { token: string } }>('/tokens/:token/permissions', async (request) => {
    const token = state.tokens.get(request.params.token);
    if (token === undefined) throw new SandboxNotFoundError('Token not found.');
    token.permissions = withPermissions(permissionsOf(token), parsePayload(PermissionsBody, request.body));
    return { token: token.token, permissions: permissionsView(token) };
  });
}
