/**
 * scripts/try-mail-servers [--dir DIR] [--keep]: a Dovecot (IMAP, LMTP,
 * submission) and an OpenSMTPD of their own on free loopback ports, with a
 * support mailbox and a customer to write from, for trying the e-mail
 * connector by hand (docs/try-it-locally.md). Prints the connector's
 * settings, a command that sends the mailbox a test mail, commands that read
 * the mailboxes, and how to stop; runs until SIGINT/SIGTERM, then stops both
 * servers and removes its folder (unless --keep). Root only (the servers
 * drop privileges themselves); beside the e-mail tests' servers, or another
 * copy of itself, where mount namespaces work (scripts/mail-servers/servers.ts).
 */
import { checkMailServers, addMailUser, prepareMailDir, startMailServers, INSTALL } from '../mail-servers/servers.ts';
import { HOST, passwordAuthConf } from '../mail-servers/configs.ts';
import { freshFolder, removeFolderAtEnd, runScript, secret } from './common.ts';

const NAME = 'try-mail-servers';
export const MAILBOX = 'support@example.test';
export const CUSTOMER = 'ann@customer.test';
/** The headings of the printed sections; each is followed by a blank line, its lines, and a blank line. */
export const SECTIONS = {
  settings: '## 1. Settings of the e-mail connector',
  send: '## 2. Send the mailbox a test mail',
  read: "## 3. Read the customer's mailbox",
  stop: '## Stop',
} as const;

const HELP = `Usage: scripts/try-mail-servers [--dir DIR] [--keep]

Starts a Dovecot (IMAP, LMTP, submission) and an OpenSMTPD on free loopback
ports, with a mailbox (${MAILBOX}) and a customer (${CUSTOMER}), and
prints the e-mail connector's settings for them, a command that sends the
mailbox a test mail, and how to read the replies. Runs until Ctrl-C (SIGINT)
or SIGTERM, then stops both servers.

  --dir DIR   the servers' folder: configuration, mail, logs (a new or empty
              folder that Dovecot's unprivileged users can reach, e.g. not
              under /root; default: a new folder in the temp folder)
  --keep      keep the folder when stopping (default: removed)

Needs root and the Debian packages of scripts/install-mail-servers:
  ${INSTALL}
Guide: docs/try-it-locally.md`;

export function connectorSettings(ports: { imap: number; submission: number }, password: string): string {
  const login = `user: ${MAILBOX}, password: "${password}"`;
  return [
    'connectors:',
    '  - name: support-mail',
    '    type: email',
    `    address: ${MAILBOX}`,
    '    from_name: Example Support',
    `    imap: { host: ${HOST}, port: ${ports.imap}, secure: false, ${login} }`,
    `    smtp: { host: ${HOST}, port: ${ports.submission}, secure: false, ${login} }`,
  ].join('\n');
}

/** A mail from the customer, handed to OpenSMTPD (which delivers it to Dovecot), with curl. */
export function sendCommand(smtpPort: number): string {
  const headers = `From: Ann Customer <${CUSTOMER}>\\r\\nTo: ${MAILBOX}\\r\\nSubject: Where is my order?\\r\\nDate: %s\\r\\nMessage-ID: <%s@customer.test>`;
  const body = 'Hello, order 42 has not arrived yet. Can you check?';
  return (
    `printf '${headers}\\r\\n\\r\\n${body}\\r\\n' "$(date -R)" "$(date +%s%N)" | ` +
    `curl -sS --url smtp://${HOST}:${smtpPort} --mail-from ${CUSTOMER} --mail-rcpt ${MAILBOX} --upload-file -`
  );
}

/** Message `n` of a folder, over IMAP with curl. */
export const readCommand = (imapPort: number, folder: string, user: string, password: string, n = 1) =>
  `curl -sS --url 'imap://${HOST}:${imapPort}/${folder};MAILINDEX=${n}' --user '${user}:${password}'`;

export function main(argv: string[]): Promise<number> {
  return runScript(NAME, HELP, argv, async (undo, options) => {
    const found = checkMailServers(`scripts/${NAME}`);
    const dir = freshFolder(options.dir, 'threadgate-try-mail-');
    removeFolderAtEnd(undo, NAME, dir, options.keep);
    prepareMailDir(dir);
    const passwords = { mailbox: secret(), customer: secret() };
    addMailUser(dir, MAILBOX, passwords.mailbox);
    addMailUser(dir, CUSTOMER, passwords.customer);
    const servers = await startMailServers({ dir, auth: passwordAuthConf(dir), login: { user: MAILBOX, password: passwords.mailbox } });
    undo('the mail servers', () => servers.stop());
    const { imap, submission, lmtp, smtp } = servers.ports;
    const lines = [
      `Dovecot ${found.dovecot.split(' ')[0]} and OpenSMTPD ${found.smtpd} are running, in ${dir}${servers.isolated ? '' : ' (OpenSMTPD on the global queue: one at a time)'}:`,
      `  Dovecot    IMAP ${HOST}:${imap}, submission ${HOST}:${submission}, LMTP ${HOST}:${lmtp}`,
      `  OpenSMTPD  SMTP ${HOST}:${smtp}, delivering mail for example.test and customer.test to Dovecot`,
      `  mailbox    ${MAILBOX}, password ${passwords.mailbox}`,
      `  customer   ${CUSTOMER}, password ${passwords.customer}`,
      '',
      `${SECTIONS.settings} (save as a settings file, e.g. mail.yaml, or add the entry to your connectors:)`,
      '',
      connectorSettings(servers.ports, passwords.mailbox),
      '',
      `${SECTIONS.send} from ${CUSTOMER} (SMTP to OpenSMTPD, which delivers it to Dovecot; the connector reads it over IMAP)`,
      '',
      sendCommand(smtp),
      '',
      `${SECTIONS.read}: the agent's replies arrive there (message 1, then 2, …); the mailbox keeps a copy of each in Sent`,
      '',
      readCommand(imap, 'INBOX', CUSTOMER, passwords.customer),
      readCommand(imap, 'Sent', MAILBOX, passwords.mailbox),
      '',
      SECTIONS.stop,
      '',
      `Ctrl-C here, or kill -TERM ${process.pid}: stops both servers and ${options.keep ? 'keeps' : 'removes'} ${dir}`,
      '',
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  });
}
