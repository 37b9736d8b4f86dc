/** Reading the error bodies a platform sends into `detail` and field errors. */
import { describe, expect, it } from 'vitest';
import { describeErrorBody, keepBody, MAX_BODY_CHARS, MAX_DETAIL_CHARS } from '../../src/platform/error-body.ts';

describe('describeErrorBody', () => {
  it('takes detail from {"detail": "..."}', () => {
    expect(describeErrorBody(404, { detail: 'Thread ID not found.' })).toEqual({
      detail: 'Thread ID not found.',
      fieldErrors: {},
    });
  });

  it('keeps detail and the field errors of the sandbox shape', () => {
    const body = { detail: 'Invalid payload.', errors: { 'messages.0.body': ['This field may not be blank.'] } };
    expect(describeErrorBody(400, body)).toEqual({
      detail: 'Invalid payload.',
      fieldErrors: { 'messages.0.body': ['This field may not be blank.'] },
    });
  });

  it('summarises serializer-style field errors, nested lists included', () => {
    const body = {
      name: ['This field may not be blank.', 'Too short.'],
      messages: [{}, { thread_id: ['Mismatched thread_id.'] }],
      non_field_errors: ['Room not found.'],
    };
    const { detail, fieldErrors } = describeErrorBody(400, body);
    expect(fieldErrors).toEqual({
      name: ['This field may not be blank.', 'Too short.'],
      'messages.1.thread_id': ['Mismatched thread_id.'],
      non_field_errors: ['Room not found.'],
    });
    expect(detail).toBe(
      'name: This field may not be blank. Too short.; messages.1.thread_id: Mismatched thread_id.; non_field_errors: Room not found.',
    );
  });

  it('reads a bare list of messages', () => {
    expect(describeErrorBody(400, ['Invalid data.']).detail).toBe('non_field_errors: Invalid data.');
  });

  it('falls back to a whitespace-collapsed excerpt of a text body, or the status text', () => {
    expect(describeErrorBody(502, '<html>\n  <b>Bad gateway</b>\n</html>').detail).toBe('<html> <b>Bad gateway</b> </html>');
    expect(describeErrorBody(503, undefined).detail).toBe('Service Unavailable');
    expect(describeErrorBody(503, {}).detail).toBe('Service Unavailable');
  });

  it('clips a long detail', () => {
    const { detail } = describeErrorBody(400, { detail: 'x'.repeat(5_000) });
    expect(detail.length).toBe(MAX_DETAIL_CHARS);
    expect(detail.endsWith('…')).toBe(true);
  });
});

describe('keepBody', () => {
  it('keeps a small parsed body and clips a large one to text', () => {
    expect(keepBody('{"a":1}', { a: 1 })).toEqual({ a: 1 });
    const big = 'y'.repeat(MAX_BODY_CHARS + 10);
    const kept = keepBody(big, big);
    expect(typeof kept).toBe('string');
    expect((kept as string).length).toBeLessThan(MAX_BODY_CHARS + 30);
    expect(kept).toContain(`(${MAX_BODY_CHARS + 10} chars)`);
  });
});
