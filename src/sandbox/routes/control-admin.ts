/**
 * The control API's administrative side, under /_sandbox (no auth): what was
 * seeded, extra users, tokens and rooms, the sandbox clock, and the record of
 * webhook attempts.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { SandboxContext } from '../context.ts';
import { SandboxValidationError } from '../errors.ts';
import { parsePayload } from '../http-errors.ts';
import type { Organization, Room, User } from '../model.ts';
import type { SandboxState } from '../state.ts';

const optionalOrganization = { organization_id: z.string().optional() };
const UserBody = z.strictObject({
  name: z.string().trim().min(1, { error: 'This field may not be blank.' }),
  public_name: z.string().trim().min(1).optional(),
  ...optionalOrganization,
});
const TokenBody = z.strictObject({ scopes: z.array(z.string()), ...optionalOrganization });
const RoomBody = z.strictObject({ name: z.string().trim().min(1).optional(), ...optionalOrganization }).optional();
const ClockBody = z.strictObject({ advance_seconds: z.number().positive() });
const AttemptsQuery = z.strictObject({ config_id: z.string().optional() });

function userView(user: User) {
  return { id: user.id, organization_id: user.organizationId, name: user.name, public_name: user.publicName };
}

const roomView = (room: Room) => ({ id: room.id, name: room.name, organization_id: room.organizationId });

/** The organization a control request names (default: `fallbackId`); a 400 on `field` when there is none. */
export function organizationFor(state: SandboxState, id: string | undefined, fallbackId: string, field = 'organization_id'): Organization {
  const organization = state.organizations.get(id ?? fallbackId);
  if (organization === undefined) throw SandboxValidationError.field(field, 'Organization not found.');
  return organization;
}

export function registerControlAdminRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  const { state, seed } = ctx;

  app.get('/info', async () => ({
    organization_id: seed.organization.id,
    room_id: seed.room.id,
    room_name: seed.room.name,
    foreign_organization_id: seed.foreignOrganization.id,
    foreign_room_id: seed.foreignRoom.id,
    agent: userView(seed.agent),
    foreign_agent: userView(seed.foreignAgent),
    token: seed.token.token,
    token_type: 'Token',
    now: new Date(state.now()).toISOString(),
  }));

  app.post('/users', async (request, reply) => {
    const body = parsePayload(UserBody, request.body);
    const organization = organizationFor(state, body.organization_id, seed.organization.id);
    return reply.status(201).send(userView(state.addUser(organization.id, body.name, body.public_name)));
  });

  /** A token of the organization's default agent with exactly the given scopes. */
  app.post('/tokens', async (request, reply) => {
    const body = parsePayload(TokenBody, request.body);
    const organization = organizationFor(state, body.organization_id, seed.organization.id);
    const agent = state.defaultAgent(organization.id) ?? state.addUser(organization.id, 'Token Holder');
    const issued = state.issueToken(organization.id, agent.id, body.scopes);
    return reply.status(201).send({ token: issued.token, token_type: 'Token', scopes: [...issued.scopes] });
  });

  app.post('/rooms', async (request, reply) => {
    const body = parsePayload(RoomBody, request.body);
    const organization = organizationFor(state, body?.organization_id, seed.organization.id);
    return reply.status(201).send(roomView(state.addRoom(organization.id, body?.name ?? 'Room')));
  });

  /** Moves the sandbox clock forward (timestamps of chats, messages, configurations). */
  app.post('/clock', async (request) => {
    const body = parsePayload(ClockBody, request.body);
    return { now: new Date(state.advanceClock(body.advance_seconds * 1000)).toISOString() };
  });

  app.get('/webhook_attempts', async (request) => {
    const query = parsePayload(AttemptsQuery, request.query);
    return {
      results: state.webhookAttempts.filter((a) => query.config_id === undefined || a.config_id === query.config_id),
    };
  });
}
