/**
 * The webhook connector's inbound routes, called the way the gateway calls
 * them: a RouteRequest with the raw body bytes, signed with the
 * `standardwebhooks` library. The bridge is replaced by a recording context.
 */
import { describe, expect, it } from 'vitest';
import type { RouteResponse } from '../../../src/connector/api.ts';
import { createConnector, INBOUND_SECRET, newSecret, routeRequest, STALE_MS } from './fixtures.ts';
import { LEVEL, platformThreadId } from './recording-context.ts';

const batch = {
  thread_id: 'order-42',
  messages: [
    { message_id: 'ext-1', sender_id: 'ann@example.com', sender_name: 'Ann', body: 'My order is late.' },
    { message_id: 'ext-2', sender_id: 'ann@example.com', body: 'It was due Monday.' },
  ],
};

async function signedConnector() {
  return createConnector({ inbound_secret: INBOUND_SECRET });
}

async function post(ctx: Awaited<ReturnType<typeof signedConnector>>['ctx'], path: string, request = routeRequest(path, batch)) {
  return (await ctx.route('POST', path)(request)) as RouteResponse;
}

describe('POST /messages', () => {
  it('submits each message of a signed batch in order and answers 202 with counts', async () => {
    const { ctx } = await signedConnector();
    const res = await post(ctx, '/messages', routeRequest('/messages', { ...batch, variables: { plan: 'gold', old: null } }));
    expect(res).toEqual({ status: 202, body: { accepted: 2, duplicates: 0, thread_id: platformThreadId(ctx.name, 'order-42') } });
    expect(ctx.submits).toEqual([
      {
        threadKey: 'order-42',
        messageId: 'ext-1',
        senderId: 'ann@example.com',
        senderName: 'Ann',
        body: 'My order is late.',
        variables: { plan: 'gold', old: null },
      },
      {
        threadKey: 'order-42',
        messageId: 'ext-2',
        senderId: 'ann@example.com',
        body: 'It was due Monday.',
        variables: { plan: 'gold', old: null },
      },
    ]);
  });

  it('counts messages the bridge already holds as duplicates (a client retrying a batch)', async () => {
    // Guards against a retried batch being reported as new, or refused.
    const { ctx } = await signedConnector();
    await post(ctx, '/messages', routeRequest('/messages', { ...batch, messages: batch.messages.slice(0, 1) }));
    const res = await post(ctx, '/messages');
    expect(res).toEqual({ status: 202, body: { accepted: 1, duplicates: 1, thread_id: platformThreadId(ctx.name, 'order-42') } });
    expect(ctx.submits.map((s) => s.messageId)).toEqual(['ext-1', 'ext-2']);
  });

  it('asks to close the session with the last message only', async () => {
    const { ctx } = await signedConnector();
    await post(ctx, '/messages', routeRequest('/messages', { ...batch, close_session: true }));
    expect(ctx.submits.map((s) => s.closeSession)).toEqual([undefined, true]);
  });

  it('answers only after every submit resolved (the durable commit)', async () => {
    // Guards against a 202 that a crash could turn into a lost message.
    const { ctx } = await signedConnector();
    const release = ctx.holdSubmits();
    let answered = false;
    const pending = post(ctx, '/messages').then((res) => {
      answered = true;
      return res;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(answered).toBe(false);
    release();
    expect((await pending).status).toBe(202);
  });

  it('lets an error of the bridge propagate to the gateway instead of answering 202', async () => {
    const { ctx } = await signedConnector();
    ctx.submit = async () => {
      throw new Error('disk full');
    };
    await expect(post(ctx, '/messages')).rejects.toThrow('disk full');
  });
});

describe('signature checks', () => {
  const cases = [
    ['a signature made with another secret', routeRequest('/messages', batch, { secret: newSecret() }), 'No matching signature'],
    ['a timestamp ten minutes old', routeRequest('/messages', batch, { timestamp: new Date(Date.now() - STALE_MS) }), 'too old'],
    ['a timestamp ten minutes ahead', routeRequest('/messages', batch, { timestamp: new Date(Date.now() + STALE_MS) }), 'too new'],
    ['no signature headers', routeRequest('/messages', batch, { secret: null }), 'Missing required headers'],
    ['no webhook-id header', routeRequest('/messages', batch, { headers: { 'webhook-id': undefined } }), 'Missing required headers'],
    ['a body changed after signing', routeRequest('/messages', batch, { sentBody: JSON.stringify({ ...batch, thread_id: 'other' }) }), 'No matching signature'],
    ['a v2 signature only', routeRequest('/messages', batch, { headers: { 'webhook-signature': 'v2,AAAA' } }), 'No matching signature'],
    ['a timestamp that is no number', routeRequest('/messages', batch, { headers: { 'webhook-timestamp': 'soon' } }), 'Invalid Signature Headers'],
    ['a signature of another length', routeRequest('/messages', batch, { headers: { 'webhook-signature': 'v1,AAAA' } }), 'No matching signature'],
  ] as const;

  it('accepts what the standardwebhooks library signed: a UTF-8 body, and the matching one of several signatures', async () => {
    const { ctx } = await signedConnector();
    const text = { ...batch, messages: [{ ...batch.messages[0], body: 'Grüße, 注文 42 — ✓' }] };
    const signed = routeRequest('/messages', text);
    const rotated = { ...signed, headers: { ...signed.headers, 'webhook-signature': `v1,${'A'.repeat(43)}= v2,AAAA ${signed.headers['webhook-signature']}` } };
    expect(await post(ctx, '/messages', rotated)).toMatchObject({ status: 202, body: { accepted: 1 } });
    expect(ctx.submits.map((m) => m.body)).toEqual(['Grüße, 注文 42 — ✓']);
  });

  it.each(cases)('refuses %s with 401 TG_SIGNATURE_INVALID and submits nothing', async (_case, request, reason) => {
    const { ctx } = await signedConnector();
    const res = await post(ctx, '/messages', request);
    expect(res).toEqual({ status: 401, body: { code: 'TG_SIGNATURE_INVALID', message: expect.stringContaining(reason) } });
    expect(ctx.submits).toEqual([]);
  });

  it('logs each refusal at info, without the secret or the signature', async () => {
    const { ctx } = await signedConnector();
    const request = routeRequest('/messages', batch, { secret: newSecret() });
    await post(ctx, '/messages', request);
    const refusal = ctx.logs.find((l) => l.msg.startsWith('inbound request refused'));
    expect(refusal).toMatchObject({ level: LEVEL.info, route: 'POST /messages', status: 401, code: 'TG_SIGNATURE_INVALID' });
    const signature = request.headers['webhook-signature']!.slice('v1,'.length);
    expect(ctx.rawLog()).not.toContain(signature);
    expect(ctx.rawLog()).not.toContain(INBOUND_SECRET.slice('whsec_'.length));
  });

  it('checks the signature before reading the body, so an unsigned caller learns nothing of the schema', async () => {
    const { ctx } = await signedConnector();
    const res = await post(ctx, '/messages', routeRequest('/messages', '{not json', { secret: null }));
    expect(res.status).toBe(401);
  });

  it('protects POST /close the same way', async () => {
    const { ctx } = await signedConnector();
    await post(ctx, '/messages');
    const res = await post(ctx, '/close', routeRequest('/close', { thread_id: 'order-42' }, { secret: newSecret() }));
    expect(res.status).toBe(401);
    expect(ctx.closes).toEqual([]);
  });
});

describe('request validation', () => {
  async function refusal(body: unknown, options: Parameters<typeof routeRequest>[2] = {}) {
    const { ctx } = await signedConnector();
    const res = await post(ctx, '/messages', routeRequest('/messages', body, options));
    expect(ctx.submits).toEqual([]);
    return res;
  }

  it('answers 400 naming malformed JSON', async () => {
    const res = await refusal('{"thread_id": "order-42",');
    expect(res).toEqual({
      status: 400,
      body: {
        code: 'TG_REQUEST_INVALID',
        message: expect.stringContaining('malformed JSON'),
        errors: [{ path: '', message: expect.stringContaining('malformed JSON') }],
      },
    });
  });

  it.each([
    ['a blank body', { ...batch, messages: [{ ...batch.messages[0], body: ' \n\t' }] }, 'messages.0.body', 'may not be blank'],
    ['no messages', { ...batch, messages: [] }, 'messages', 'at least 1'],
    ['no thread_id', { messages: batch.messages }, 'thread_id', 'required'],
    ['a blank thread_id', { ...batch, thread_id: '  ' }, 'thread_id', 'may not be blank'],
    ['a thread_id of 401 characters', { ...batch, thread_id: 'x'.repeat(401) }, 'thread_id', 'no more than 400'],
    ['a second message without sender_id', { ...batch, messages: [batch.messages[0], { message_id: 'e', body: 'b' }] }, 'messages.1.sender_id', 'required'],
    ['101 messages', { ...batch, messages: Array.from({ length: 101 }, (_, i) => ({ ...batch.messages[1], message_id: `m${i}` })) }, 'messages', 'no more than 100'],
    ['a numeric variable', { ...batch, variables: { plan: 3 } }, 'variables.plan', 'expected string'],
    ['close_session as a string', { ...batch, close_session: 'yes' }, 'close_session', 'expected boolean'],
    ['an unknown field', { ...batch, priority: 'high' }, 'priority', 'Unknown field'],
    ['an unknown field in a message', { ...batch, messages: [{ ...batch.messages[0], html: '<p>' }] }, 'messages.0.html', 'Unknown field'],
  ])('answers 400 for %s, naming the field', async (_case, body, path, message) => {
    const res = await refusal(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'TG_REQUEST_INVALID', message: expect.stringContaining(path) });
    expect((res.body as { errors: unknown[] }).errors).toEqual([{ path, message: expect.stringContaining(message) }]);
  });

  it('names every bad field of one request', async () => {
    const res = await refusal({ messages: [{ message_id: '', sender_id: 'a', body: '' }] });
    const paths = (res.body as { errors: { path: string }[] }).errors.map((e) => e.path).sort();
    expect(paths).toEqual(['messages.0.body', 'messages.0.message_id', 'thread_id']);
  });

  it.each(['text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', null])(
    'answers 415 for Content-Type %s',
    async (contentType) => {
      const res = await refusal(batch, { contentType });
      expect(res).toEqual({ status: 415, body: { code: 'TG_UNSUPPORTED_MEDIA_TYPE', message: expect.any(String) } });
    },
  );

  it('accepts application/json with a UTF-8 charset and vendor +json types', async () => {
    for (const contentType of ['application/json; charset=UTF-8', 'application/vnd.partner+json']) {
      const { ctx } = await signedConnector();
      expect((await post(ctx, '/messages', routeRequest('/messages', batch, { contentType }))).status).toBe(202);
    }
  });

  it('answers 400 for a body that is not UTF-8', async () => {
    const { ctx } = await createConnector({ allow_unsigned: true });
    const request = routeRequest('/messages', batch, { secret: null });
    request.rawBody = Buffer.from([0x7b, 0xff, 0xfe, 0x7d]);
    const res = await post(ctx, '/messages', request);
    expect(res).toMatchObject({ status: 400, body: { code: 'TG_REQUEST_INVALID', message: expect.stringContaining('UTF-8') } });
  });
});

describe('POST /close', () => {
  it('queues closing a known thread and answers 202', async () => {
    const { ctx } = await signedConnector();
    await post(ctx, '/messages');
    const res = await post(ctx, '/close', routeRequest('/close', { thread_id: 'order-42' }));
    expect(res).toEqual({ status: 202, body: { closing: true, thread_id: platformThreadId(ctx.name, 'order-42') } });
    expect(ctx.closes).toEqual(['order-42']);
  });

  it('answers 404 for a thread it never received, closing nothing', async () => {
    const { ctx } = await signedConnector();
    const res = await post(ctx, '/close', routeRequest('/close', { thread_id: 'never-seen' }));
    expect(res).toEqual({ status: 404, body: { code: 'TG_THREAD_NOT_FOUND', message: expect.any(String) } });
    expect(ctx.closes).toEqual([]);
  });

  it('answers 400 naming thread_id when it is missing', async () => {
    const { ctx } = await signedConnector();
    const res = await post(ctx, '/close', routeRequest('/close', {}));
    expect(res).toMatchObject({ status: 400, body: { errors: [{ path: 'thread_id', message: 'This field is required.' }] } });
  });
});

describe('allow_unsigned', () => {
  it('accepts unsigned requests and warns at create that it does', async () => {
    const { ctx } = await createConnector({ allow_unsigned: true });
    expect(ctx.logs.find((l) => l.level === LEVEL.warn)?.msg).toContain('allow_unsigned');
    const res = await post(ctx, '/messages', routeRequest('/messages', batch, { secret: null }));
    expect(res).toMatchObject({ status: 202, body: { accepted: 2 } });
    expect((await post(ctx, '/close', routeRequest('/close', { thread_id: 'order-42' }, { secret: null }))).status).toBe(202);
  });

  it('does not warn when requests must be signed', async () => {
    const { ctx } = await signedConnector();
    expect(ctx.logs.filter((l) => l.level >= LEVEL.warn)).toEqual([]);
  });
});
