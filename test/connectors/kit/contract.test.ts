/**
 * The contract suite (`connectorContract`): the bundled webhook connector and
 * the docs' example pass it; a connector that breaks each rule fails that
 * check, with the reason, and only that one.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import webhookConnector from '../../../connectors/webhook/index.ts';
import { defineConnector, type ConnectorDefinition } from '../../../src/connector/api.ts';
import { connectorContract, runContract } from '../../../src/connector/testing/index.ts';
import { newSecret } from '../webhook/fixtures.ts';
import { startReceiver, type Receiver } from '../webhook/receiver.ts';

let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

describe('the contract suite', () => {
  it('passes the bundled webhook connector, delivery idempotent by its webhook-id', async () => {
    const outbound = newSecret();
    receiver = await startReceiver(outbound, () => ({ status: 200 }));
    const seen = () => new Set(receiver!.requests.map((r) => r.headers['webhook-id'])).size;
    const checks = connectorContract(webhookConnector, {
      settings: { inbound_secret: newSecret(), outbound_url: receiver.url, outbound_secret: outbound },
      idempotent: { effects: seen },
    });
    const results = await runContract(checks);
    expect(results.filter((r) => !r.ok)).toEqual([]);
    expect(results).toHaveLength(6);
    expect(receiver.requests).toHaveLength(2); // the retry went out again, with the same webhook-id
  });

  it("passes the docs' example connector", async () => {
    const echo = (await import(join(import.meta.dirname, '../../../docs/examples/echo-connector.ts'))).default as ConnectorDefinition;
    expect((await runContract(connectorContract(echo, { settings: {} }))).filter((r) => !r.ok)).toEqual([]);
  });

  it('fails each broken rule with its reason, and passes the rest', async () => {
    const SECRET = `s3cret-${randomUUID()}`;
    const sent: string[] = [];
    const broken = defineConnector({
      type: 'broken',
      configSchema: z.object({ api_secret: z.string() }), // not strict: a typo passes
      create(config, ctx) {
        let timer: NodeJS.Timeout | undefined;
        ctx.routes.add('POST', '/hooks', async (req) => {
          ctx.logger.info({ secret_was: config.api_secret }, 'checking'); // a secret in the log
          const body = JSON.parse(req.rawBody.toString('utf8')) as { thread_id: string }; // an empty body throws: 500
          return { status: 202, body };
        });
        return {
          start() {
            timer = setInterval(() => {}, 60_000); // never cleared
          },
          stop() {},
          async deliver(event) {
            sent.push(event.event_type); // no check for a retry: a second effect
          },
          health: () => ({ ok: 'yes' }) as never,
        };
      },
    });
    const results = await runContract(connectorContract(broken, { settings: { api_secret: SECRET }, idempotent: { effects: () => sent.length } }));
    const failed = Object.fromEntries(results.filter((r) => !r.ok).map((r) => [r.name.split(' ').slice(0, 3).join(' '), r.reason]));
    expect(failed).toEqual({
      'its settings schema': expect.stringContaining('an unknown key "no_such_key_of_the_contract" was accepted'),
      'create, start and': expect.stringMatching(/^after stop these stay open: 1 × Timeout/),
      'each route answers': expect.stringMatching(/^POST \/hooks answered an empty request with 500; POST \/hooks answered malformed JSON with 500; POST \/hooks answered an unsigned JSON body with 202/),
      'deliver of the': 'two deliveries of one event made 2 external effect(s), not 1',
      'health has the': 'health answered {"ok":"yes"}: it needs ok, a boolean',
      'no configured secret': 'a log line holds the value of api_secret',
    });
    expect(JSON.stringify(results)).not.toContain(SECRET);
  });
});
