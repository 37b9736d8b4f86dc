/**
 * The root logger's pretty format (`log.format: pretty`): one line per event
 * — time, level, connector (else the gateway part), message, the other fields
 * as key=value — written from the JSON line after both redactions, so no
 * secret that JSON hides shows up here either. JSON stays the default.
 */
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.ts';
import { capture } from '../support/log-capture.ts';


const ISO = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z';

describe('pretty log lines', () => {
  it('time, level, [connector], message, then key=value (nested objects dotted, spaced values quoted)', () => {
    const { lines, stream } = capture();
    const log = createLogger('info', stream, 'pretty').child({ room: 'connector' }).child({ connector: 'mail' });
    log.warn({ err: { message: 'IMAP authentication failed: AUTHENTICATIONFAILED: Authentication failed.', code: 'E1' }, failures: 2, idle: false }, 'mailbox connection failed');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(
        `^${ISO} WARN  \\[mail\\] mailbox connection failed room=connector ` +
          'err\\.message="IMAP authentication failed: AUTHENTICATIONFAILED: Authentication failed\\." err\\.code=E1 failures=2 idle=false\\n$',
      ),
    );
    expect(lines[0]).not.toContain('service=');
  });

  it('shows the gateway part when there is no connector, and each level by name', () => {
    const { lines, stream } = capture();
    const log = createLogger('trace', stream, 'pretty');
    log.child({ room: 'http' }).info({ req: { method: 'GET', url: '/healthz' } }, 'incoming request');
    log.error('no room');
    log.debug({ list: [1, 'two'], empty: {}, nothing: null }, 'shapes');
    expect(lines[0]).toMatch(new RegExp(`^${ISO} INFO  \\[http\\] incoming request req\\.method=GET req\\.url=/healthz\\n$`));
    expect(lines[1]).toMatch(new RegExp(`^${ISO} ERROR - no room\\n$`));
    expect(lines[2]).toMatch(/ DEBUG - shapes list=\[1,"two"\] empty=\{\} nothing=null\n$/);
  });

  it('keeps every event on one line: line breaks in the message and, at debug, in an error stack are escaped', () => {
    const { lines, stream } = capture();
    const log = createLogger('debug', stream, 'pretty');
    log.error({ err: new Error('first line\nsecond line') }, 'failed:\nsee below');
    expect(lines).toHaveLength(1);
    expect(lines[0]!.split('\n')).toEqual([expect.any(String), '']);
    expect(lines[0]).toContain(' failed:\\nsee below err.type=Error err.message="first line\\nsecond line" err.stack="Error: first line\\nsecond line\\n    at ');
  });

  it('leaves errors\' stacks out above debug: an error is its type and message (its cause\'s message folded in)', () => {
    const { lines, stream } = capture();
    const log = createLogger('info', stream, 'pretty');
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    log.warn({ err: new Error('delivery failed', { cause: refused }) }, 'job failed (failed)');
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain('stack');
    expect(lines[0]).not.toContain('    at ');
    expect(lines[0]).toMatch(/ WARN  - job failed \(failed\) err\.type=Error err\.message="delivery failed: connect ECONNREFUSED 127\.0\.0\.1:9"\n$/);
  });

  it('redacts secret fields and credential query values exactly as the JSON lines do', () => {
    const secrets = ['plat-123', 'hunter2', 'sha256=abc', 'k-456', 't-789', 'deadbeef'];
    const write = (format: 'json' | 'pretty') => {
      const { lines, stream } = capture();
      const log = createLogger('info', stream, format).child({ connector: 'helpdesk' });
      log.info(
        {
          req: { headers: { authorization: 'Token plat-123', 'x-svc-signature': 'sha256=abc' } },
          imap: { password: 'hunter2' },
          registration: { webhook_secret_key: 'deadbeef' },
          url: '/admin/api/deliveries?status=dead&token=t-789',
        },
        'POST https://hooks.example.test/in?api_key=k-456 answered 503',
      );
      return lines.join('');
    };
    const pretty = write('pretty');
    for (const secret of secrets) expect(pretty).not.toContain(secret);
    expect(pretty).toContain('req.headers.authorization=[redacted]');
    expect(pretty).toContain('imap.password=[redacted]');
    expect(pretty).toContain('url="/admin/api/deliveries?status=dead&token=[redacted]"');
    expect(pretty).toContain('POST https://hooks.example.test/in?api_key=[redacted] answered 503');
    const json = write('json');
    expect(JSON.parse(json)).toMatchObject({ connector: 'helpdesk', imap: { password: '[redacted]' } });
  });

  it('JSON is the default; a plain-object err is written as given, an Error with type, message and stack', () => {
    const { lines, stream } = capture();
    const log = createLogger('info', stream);
    log.warn({ err: { message: 'Command failed', code: 'X' } }, 'plain');
    log.warn({ err: new TypeError('bad') }, 'real');
    const [plain, real] = lines.map((l) => JSON.parse(l) as { err: Record<string, unknown> });
    expect(plain!.err).toEqual({ message: 'Command failed', code: 'X' });
    expect(real!.err).toMatchObject({ type: 'TypeError', message: 'bad', stack: expect.stringContaining('TypeError: bad') });
  });
});
