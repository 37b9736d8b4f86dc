/**
 * Who a reply's Cc holds (connectors/email/reply-all.ts): everyone the
 * customer's side kept on the thread, never the sender it is addressed to or
 * the support address in any `+tag` form, each once, at most MAX_CC.
 */
import { describe, expect, it } from 'vitest';
import { isSupportAddress, MAX_CC, threadCc } from '../../../connectors/email/reply-all.ts';

const SUPPORT = 'help@shop.test';

describe('reply-all Cc', () => {
  it('keeps the first mail\'s To and Cc without the support address and the sender', () => {
    const cc = threadCc(SUPPORT, 'ann@customer.test', [], {
      to: [{ address: 'help@shop.test' }, { address: 'sales@shop.test' }],
      cc: [{ address: 'Bob@Customer.test', name: 'Bob' }, { address: 'help+abcdefghijkl@shop.test' }, { address: 'ann@customer.test' }],
    });
    expect(cc).toEqual([{ address: 'sales@shop.test' }, { address: 'bob@customer.test', name: 'Bob' }]);
  });

  it('after a colleague answers, the former addressee moves to Cc and the colleague is addressed', () => {
    const previous = [{ address: 'ann@customer.test', name: 'Ann' }, { address: 'bob@customer.test' }];
    const cc = threadCc(SUPPORT, 'bob@customer.test', previous, { to: [{ address: 'help+abcdefghijkl@shop.test' }], cc: [{ address: 'ann@customer.test' }] });
    expect(cc).toEqual([{ address: 'ann@customer.test', name: 'Ann' }]);
  });

  it('holds each address once, at most MAX_CC', () => {
    const many = Array.from({ length: 30 }, (_, i) => ({ address: `p${i}@customer.test` }));
    const cc = threadCc(SUPPORT, 'ann@customer.test', many.slice(0, 5), { to: many, cc: many });
    expect(cc).toHaveLength(MAX_CC);
    expect(new Set(cc.map((c) => c.address)).size).toBe(MAX_CC);
  });

  it('knows the support address in any case and with any +tag, and nothing else', () => {
    expect(isSupportAddress(SUPPORT, 'HELP@shop.test')).toBe(true);
    expect(isSupportAddress(SUPPORT, 'help+x@shop.test')).toBe(true);
    expect(isSupportAddress(SUPPORT, 'helpdesk@shop.test')).toBe(false);
    expect(isSupportAddress(SUPPORT, 'help@shop.test.evil')).toBe(false);
    expect(isSupportAddress(SUPPORT, 'help+x@other.test')).toBe(false);
  });
});
