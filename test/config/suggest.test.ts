/** "Did you mean …?": the known word a misspelt one is close to, and none for a word that is not close to any. */
import { describe, expect, it } from 'vitest';
import { closestWord, didYouMean, editDistance } from '../../src/config/suggest.ts';

const SECTIONS = ['platform', 'server', 'store', 'files', 'sandbox', 'log', 'jobs', 'proxy', 'connectors'];

describe('suggestions for a misspelt key', () => {
  it('counts insertions, deletions and substitutions', () => {
    expect(editDistance('token', 'token')).toBe(0);
    expect(editDistance('tokn', 'token')).toBe(1);
    expect(editDistance('stroe', 'store')).toBe(2);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });

  it('names the closest known word up to two edits away', () => {
    expect(closestWord('stroe', SECTIONS)).toBe('store');
    expect(closestWord('conectors', SECTIONS)).toBe('connectors');
    expect(closestWord('adress', ['imap', 'smtp', 'address', 'from_name'])).toBe('address');
    expect(closestWord('webhok', ['email', 'redmine', 'webhook'])).toBe('webhook');
  });

  it('takes a prefix either way, and ignores case and - for _', () => {
    expect(closestWord('retention', ['retention_days', 'pool_size'])).toBe('retention_days');
    expect(closestWord('max_stored_body_bytes_limit', ['max_stored_body_bytes'])).toBe('max_stored_body_bytes');
    expect(closestWord('Room-Id', ['name', 'type', 'room_id'])).toBe('room_id');
  });

  it('prefers fewer edits', () => {
    expect(closestWord('pot', ['host', 'port'])).toBe('port');
  });

  it('names nothing when no word is close, short words included', () => {
    expect(closestWord('colour', SECTIONS)).toBeUndefined();
    expect(closestWord('id', ['url', 'key'])).toBeUndefined();
    expect(closestWord('pla', SECTIONS)).toBeUndefined(); // a prefix needs four letters
    expect(didYouMean('colour', SECTIONS)).toBe('');
    expect(didYouMean('tokn', ['token', 'token_type'])).toBe(' — did you mean `token`?');
  });
});
