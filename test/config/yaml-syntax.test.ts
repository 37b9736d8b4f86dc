/**
 * A settings file that is not valid YAML is refused with the line and column
 * of the mistake, by every command that reads it: the first error, then only
 * later ones that are mistakes of their own, the rest counted in one line. An
 * unquoted `${VAR}` inside `{ … }` is named with its fix.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigInvalidError, formatProblem, type ConfigProblem } from '../../src/config/errors.ts';
import { parseSettingsText } from '../../src/config/load.ts';
import { runCli } from '../support/cli.ts';
import { tempDir } from '../support/temp-dir.ts';

function problemsOf(text: string): readonly ConfigProblem[] {
  try {
    parseSettingsText(text, {}, 'test.yaml');
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigInvalidError);
    return (err as ConfigInvalidError).problems;
  }
  throw new Error('expected the settings to be refused');
}

/** The README's e-mail example as it was: two placeholders unquoted inside flow mappings. */
const UNQUOTED = [
  'connectors:',
  '  - name: support-mail',
  '    type: email',
  '    address: support@example.com',
  '    imap: { host: imap.example.com, port: 993, user: support@example.com, password: ${IMAP_PASSWORD}, mailbox: INBOX }',
  '    smtp: { host: smtp.example.com, port: 587, user: support@example.com, password: ${SMTP_PASSWORD} }',
  '    poll_seconds: 60',
].join('\n');

describe('YAML syntax errors', () => {
  it('carry the line and column of the mistake', () => {
    expect(problemsOf('server:\n  port: 1\n  port: 2\n')).toEqual([{ path: '', line: 3, column: 3, message: 'YAML: Map keys must be unique' }]);
    expect(problemsOf('server:\n\tport: 1\n')).toEqual([{ path: '', line: 2, column: 1, message: 'YAML: Tabs are not allowed as indentation' }]);
    expect(formatProblem(problemsOf('log: { level: info\n')[0]!)).toMatch(/^line \d+, column \d+: YAML: /);
  });

  it('do not repeat the text they point at, which may be a secret', () => {
    expect(problemsOf('platform:\n  token: x\n]s3cr3t-token\n')[0]).toEqual({ path: '', line: 3, column: 1, message: 'YAML: Unexpected flow-seq-end token in YAML stream' });
    expect(JSON.stringify(problemsOf('- a\nb: s3cr3t-token\n'))).not.toContain('s3cr3t');
  });

  it('name each unquoted ${VAR} inside { … } with its fix, and count what follows from them in one line', () => {
    const problems = problemsOf(UNQUOTED).map(formatProblem);
    expect(problems).toEqual([
      'line 5, column 85: YAML: ${IMAP_PASSWORD} inside { … } or [ … ] must be quoted: "${IMAP_PASSWORD}"',
      'line 6, column 85: YAML: ${SMTP_PASSWORD} inside { … } or [ … ] must be quoted: "${SMTP_PASSWORD}"',
      expect.stringMatching(/^YAML: \d+ more syntax error\(s\) further on, which often follow from those above; fix that and check again$/),
    ]);
    const quoted = UNQUOTED.replace('${IMAP_PASSWORD}', '"${IMAP_PASSWORD}"').replace('${SMTP_PASSWORD}', '"${SMTP_PASSWORD}"');
    expect(parseSettingsText(quoted, { IMAP_PASSWORD: 'p', SMTP_PASSWORD: 'q' }, 'test.yaml').connectors[0]).toMatchObject({
      imap: { password: 'p' },
      smtp: { password: 'q' },
    });
  });

  it('are printed with line and column by config check and by serve, which does not start', () => {
    const file = join(tempDir(), 'threadgate.yaml');
    writeFileSync(file, UNQUOTED);
    for (const command of [['config', 'check'], ['serve', '--port', '0']]) {
      const r = runCli([...command, '--config', file]);
      expect(r.stderr, command[0]).toContain(`${file}: 3 problem(s)\n  line 5, column 85: YAML: \${IMAP_PASSWORD} inside { … } or [ … ] must be quoted`);
      expect(r.stdout, command[0]).toBe('');
      expect(r.status, command[0]).toBe(1);
    }
  });
});
