/**
 * ConnectorRuntime.replace (serve --watch): the new instance takes new
 * deliveries at once; the old one's delivery in flight finishes before its
 * stop; its poll ends; routes are the new instance's; and when the new one
 * cannot be made, the old one keeps running with its routes.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineConnector, type ConnectorInstance, type ConnectorRoutes } from '../../../src/connector/api.ts';
import { ConnectorRuntime } from '../../../src/connector/runtime.ts';
import { messageCreated, recordingContext } from '../../../src/connector/testing/index.ts';
import { createLogger } from '../../../src/log/logger.ts';

const events: string[] = [];

function version(name: string, options: { hold?: Promise<void>; failCreate?: boolean } = {}) {
  return defineConnector({
    type: 'swap',
    configSchema: z.strictObject({}),
    create(_config, ctx) {
      if (options.failCreate) throw new Error(`${name} cannot be made`);
      ctx.routes.add('GET', '/who', async () => ({ status: 200, body: { name } }));
      const instance: ConnectorInstance = {
        start: () => void events.push(`${name} start`),
        async poll({ signal }) {
          events.push(`${name} poll`);
          await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
          events.push(`${name} poll ended`);
        },
        stop: () => void events.push(`${name} stop`),
        async deliver(event) {
          events.push(`${name} deliver ${event.event_type}`);
          await options.hold;
          events.push(`${name} delivered`);
        },
      };
      return instance;
    },
  });
}

describe('ConnectorRuntime.replace', () => {
  it('swaps the instance: the old delivery finishes before its stop, the new one serves routes and deliveries', async () => {
    events.length = 0;
    const runtime = new ConnectorRuntime(createLogger('silent'));
    const contextFor = (name: string, routes: ConnectorRoutes) => ({ ...recordingContext({ name }), routes });
    let release = () => {};
    const hold = new Promise<void>((resolve) => (release = resolve));
    const v1 = version('v1', { hold });
    await runtime.createAll([{ name: 'swap', type: 'swap' }], { definitions: new Map([['swap', v1]]), configs: new Map([['swap', {}]]), problems: [] }, contextFor);
    await runtime.startAll();
    const event = messageCreated({ threadId: 'swap:t' });
    const inFlight = runtime.instanceOf('swap')!.deliver(event, undefined, { signal: new AbortController().signal, attempt: 1 });

    const replaced = runtime.replace('swap', version('v2'), {}, contextFor);
    await new Promise((r) => setTimeout(r, 50));
    expect(events).not.toContain('v1 stop'); // its delivery is still in flight
    await runtime.instanceOf('swap')!.deliver(event, undefined, { signal: new AbortController().signal, attempt: 1 });
    expect(events).toContain('v2 deliver message_created');
    release();
    await inFlight;
    await replaced;
    expect(events.indexOf('v1 delivered')).toBeLessThan(events.indexOf('v1 stop'));
    expect(events.indexOf('v1 poll ended')).toBeLessThan(events.indexOf('v1 stop'));
    expect(events.slice(events.indexOf('v1 stop'))).toEqual(expect.arrayContaining(['v2 start', 'v2 poll']));
    const route = runtime.routes.match('swap', 'GET', '/who');
    expect(route !== undefined && route !== 'method' ? await route.handler({} as never) : undefined).toEqual({ status: 200, body: { name: 'v2' } });

    await expect(runtime.replace('swap', version('v3', { failCreate: true }), {}, contextFor)).rejects.toThrow('v3 cannot be made');
    const kept = runtime.routes.match('swap', 'GET', '/who');
    expect(kept !== undefined && kept !== 'method' ? await kept.handler({} as never) : undefined).toEqual({ status: 200, body: { name: 'v2' } });
    expect(events).not.toContain('v2 stop');
    await runtime.stopAll();
    expect(events).toContain('v2 stop');
  });
});
