/**
 * `/api-docs` on a gateway whose proxy is off says so (the paths answer 404)
 * and how to turn it on, on the page and in the OpenAPI document; with the
 * proxy on, neither says it. And `/favicon.ico` is an empty 204, not a 404.
 */
import { describe, expect, it } from 'vitest';
import { PROXY_OFF_NOTE } from '../../src/http/api-docs/routes.ts';
import { startTestGateway } from '../support/gateway.ts';

describe('the API docs and the proxy state', () => {
  it('with the proxy off, the page and the document say so; a proxied path answers 404', async () => {
    const tg = await startTestGateway({ connectors: [] });
    const page = await tg.call('GET', '/api-docs');
    expect(page.status).toBe(200);
    expect(page.text).toContain('The proxy is off on this gateway: these paths answer 404 until the settings give it a key (proxy.clients)');
    const doc = await tg.call('GET', '/api-docs/openapi.json');
    expect(doc.body.info['x-proxy-enabled']).toBe(false);
    expect(doc.body.info.description).toContain(PROXY_OFF_NOTE);
    const proxied = Object.keys(doc.body.paths)[0]!.replace(/\{[^}]+\}/g, 'x');
    expect((await tg.call('GET', proxied)).status).toBe(404);
  });

  it('with the proxy on, neither says it is off', async () => {
    const tg = await startTestGateway({ connectors: [], settings: { proxy: { forward_caller_authorization: true } } });
    expect((await tg.call('GET', '/api-docs')).text).not.toContain('The proxy is off');
    const doc = await tg.call('GET', '/api-docs/openapi.json');
    expect(doc.body.info['x-proxy-enabled']).toBeUndefined();
    expect(JSON.stringify(doc.body.info)).not.toContain('The proxy is off');
  });

  it('answers /favicon.ico with an empty 204 that browsers may cache', async () => {
    const tg = await startTestGateway({ connectors: [] });
    const icon = await tg.call('GET', '/favicon.ico');
    expect(icon.status).toBe(204);
    expect(icon.text).toBe('');
    expect(icon.headers['cache-control']).toBe('public, max-age=86400');
  });
});
