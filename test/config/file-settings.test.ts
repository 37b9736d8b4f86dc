/**
 * `files.max_fetch_bytes` and `files.fetch_hosts` (downloads of agents'
 * attachments): their defaults, host names kept in lower case, and a URL or
 * a wildcard refused with its path, so a typo never silently allows nothing.
 */
import { describe, expect, it } from 'vitest';
import { ConfigInvalidError } from '../../src/config/errors.ts';
import { parseSettingsText } from '../../src/config/load.ts';

function problemsOf(text: string): string[] {
  try {
    parseSettingsText(text, {}, 'test.yaml');
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigInvalidError);
    return (err as ConfigInvalidError).problems.map((p) => p.path);
  }
  throw new Error('expected the settings to be refused');
}

describe('file settings', () => {
  it('defaults to 25 MiB and no extra hosts; host names are kept in lower case', () => {
    expect(parseSettingsText('{}', {}, 'test.yaml').files).toEqual({ link_ttl_days: 30, max_fetch_bytes: 25 * 1024 * 1024, fetch_hosts: [] });
    const settings = parseSettingsText('files: { max_fetch_bytes: 1000, fetch_hosts: [Files.Example-CDN.com, 10.0.0.7, "[::1]"] }', {}, 'test.yaml');
    expect(settings.files).toMatchObject({ max_fetch_bytes: 1000, fetch_hosts: ['files.example-cdn.com', '10.0.0.7', '[::1]'] });
  });

  it('refuses a URL, a port or a wildcard as a host, and a size of 0', () => {
    expect(problemsOf('files: { fetch_hosts: ["https://cdn.example.com"] }')).toEqual(['files.fetch_hosts[0]']);
    expect(problemsOf('files: { fetch_hosts: [ok.example.com, "cdn.example.com:8443", "*.example.com"] }')).toEqual([
      'files.fetch_hosts[1]',
      'files.fetch_hosts[2]',
    ]);
    expect(problemsOf('files: { max_fetch_bytes: 0 }')).toEqual(['files.max_fetch_bytes']);
  });
});
