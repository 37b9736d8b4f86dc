/** Sealing secrets at rest (src/bridge/sealer.ts): round trip, a fresh IV each time, other keys and altered values refused. */
import { describe, expect, it } from 'vitest';
import { createSealer, SealedValueError } from '../../src/bridge/sealer.ts';

const KEY = 'k'.repeat(32);

describe('sealer', () => {
  it('opens what it sealed; the same text seals differently each time and never shows in the sealed form', () => {
    const sealer = createSealer(KEY);
    const a = sealer.seal('refresh-token-ABC');
    const b = sealer.seal('refresh-token-ABC');
    expect(a).not.toBe(b);
    expect(a).toMatch(/^v1\.[\w-]+\.[\w-]+$/);
    expect(a).not.toContain('refresh-token');
    expect(sealer.open(a)).toBe('refresh-token-ABC');
    expect(sealer.open(sealer.seal(''))).toBe('');
  });

  it('refuses a value sealed under another key, an altered one and a foreign one, with a stable code', () => {
    const sealed = createSealer(KEY).seal('secret');
    expect(() => createSealer('x'.repeat(32)).open(sealed)).toThrow(SealedValueError);
    // One character of the tag changed (not the last: its low bits may be padding); it must differ from the one it replaces.
    const at = sealed.length - 2;
    const flipped = sealed.slice(0, at) + (sealed[at] === 'A' ? 'B' : 'A') + sealed.slice(at + 1);
    expect(flipped).not.toBe(sealed);
    expect(() => createSealer(KEY).open(flipped)).toThrow(SealedValueError);
    expect(() => createSealer(KEY).open('plain text')).toThrow(expect.objectContaining({ code: 'TG_SEALED_VALUE_INVALID' }));
  });
});
