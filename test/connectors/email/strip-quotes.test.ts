/**
 * Quote and signature stripping: the chat shows what the customer wrote
 * this time, not the whole thread again and not their signature — and never
 * loses what they wrote (an interleaved answer, a forwarded mail, a message
 * that is all quote).
 */
import { describe, expect, it } from 'vitest';
import { stripQuotes } from '../../../src/connector/text/strip-quotes.ts';

const lines = (...text: string[]) => text.join('\n');

describe('stripQuotes: quoted history', () => {
  it('removes ">" lines and the attribution before them', () => {
    // Guards against: every reply reposting the agent's previous answer into the chat.
    const text = lines('Thanks, that helps.', '', 'On Mon, 4 Mar 2024 at 09:12, Tom <tom@shop.example> wrote:', '> Try restarting it.', '> Tom');
    expect(stripQuotes(text)).toBe('Thanks, that helps.');
  });

  it('removes an attribution wrapped over two or three lines', () => {
    // Guards against: a dangling "wrote:" line left over when Gmail wraps a long attribution.
    const two = lines('Yes.', '', 'On Mon, Mar 4, 2024 at 9:40 AM Shop Support <support@shop.example>', 'wrote:', '', '> Shall we ship?');
    expect(stripQuotes(two)).toBe('Yes.');
    const three = lines('Yes.', '', 'On Mon, Mar 4, 2024 at 9:40 AM Shop Support', '<support@shop.example>', 'wrote:', '> Shall we ship?');
    expect(stripQuotes(three)).toBe('Yes.');
  });

  it.each([
    ['German', 'Am 04.03.2024 um 09:12 schrieb Shop Support <support@shop.example>:'],
    ['German, name last', 'Am Mo., 4. März 2024 um 09:12 Uhr schrieb Shop Support <support@shop.example>:'],
    ['French', 'Le lun. 4 mars 2024 à 09:12, Service client <support@shop.example> a écrit :'],
    ['French with a no-break space', 'Le 4 mars 2024 à 09:12, Service client a écrit\u00a0:'],
    ['Spanish', 'El lun, 4 mar 2024 a las 9:12, Atención al cliente (<support@shop.example>) escribió:'],
    ['Dutch', 'Op ma 4 mrt 2024 om 09:12 schreef Klantenservice <support@shop.example>:'],
    ['Thunderbird', 'On 04.03.24 09:12, Shop Support wrote:'],
  ])('removes the %s attribution form', (_, attribution) => {
    // Guards against: replies from non-English clients keeping their reply header in the chat.
    expect(stripQuotes(lines('Danke!', '', attribution, '> Alte Nachricht'))).toBe('Danke!');
  });

  it('keeps the answers between quotes of an interleaved reply', () => {
    // Guards against: losing the customer's answers when they reply below each question.
    const text = lines(
      'On 12.03.24 09:12, Shop Support wrote:',
      '> Which size do you need?',
      '',
      'Size M please.',
      '',
      '> And which colour?',
      '',
      'Dark blue.',
    );
    expect(stripQuotes(text)).toBe(lines('Size M please.', '', 'Dark blue.'));
  });

  it('keeps an "On … wrote:" sentence that is followed by the customer\'s own text', () => {
    // Guards against: eating prose that only looks like an attribution.
    const text = lines('On the order page you wrote:', 'delivery in 2 days. It took 9.');
    expect(stripQuotes(text)).toBe(text);
  });
});

describe('stripQuotes: Outlook history', () => {
  it('cuts from "-----Original Message-----" to the end', () => {
    // Guards against: Outlook's unquoted history (no ">") being posted whole.
    const text = lines(
      'Please cancel the second item.',
      '',
      '-----Original Message-----',
      'From: Shop Support [mailto:support@shop.example]',
      'Sent: Tuesday, March 5, 2024 3:02 PM',
      'To: Dave Harris <dave@harris.example>',
      'Subject: RE: Order 10077',
      '',
      'Dear Dave, shall we ship both?',
    );
    expect(stripQuotes(text)).toBe('Please cancel the second item.');
  });

  it('cuts from the "____" separator and From/Sent/To/Subject block, also in German', () => {
    // Guards against: Outlook desktop and Outlook on the web replies keeping the thread.
    const english = lines('Thanks', '', '________________________________', 'From: Shop <s@shop.example>', 'Sent: Friday, March 1, 2024 4:15 PM', 'To: Robert', 'Subject: Re: Invoice', '', 'old');
    expect(stripQuotes(english)).toBe('Thanks');
    const german = lines('Danke', '', '________________________________', 'Von: Shop <s@shop.example>', 'Gesendet: Freitag, 1. März 2024 16:15', 'An: Robert', 'Betreff: AW: Rechnung', '', 'alt');
    expect(stripQuotes(german)).toBe('Danke');
  });

  it('cuts the block after an HTML rule, a block without any separator, and one squeezed onto one line', () => {
    // Guards against: the shapes Outlook's HTML takes once converted to text.
    const rule = lines('Hinges missing.', '', '-'.repeat(40), '', 'From: Shop', 'Sent: Wednesday', 'To: Ines', 'Subject: Re: Parts', '', 'Which parts?');
    expect(stripQuotes(rule)).toBe('Hinges missing.');
    const bare = lines('Hinges missing.', '', 'From: Shop', 'Sent: Wednesday', 'To: Ines', 'Subject: Re: Parts', '', 'Which parts?');
    expect(stripQuotes(bare)).toBe('Hinges missing.');
    const oneLine = lines('Hinges missing.', 'From: Shop Sent: Wednesday To: Ines Subject: Re: Parts', 'Which parts?');
    expect(stripQuotes(oneLine)).toBe('Hinges missing.');
  });

  it("cuts Outlook for Mac's From/Date/To/Subject block", () => {
    // Guards against: Mac Outlook replies (Date: instead of Sent:) keeping the thread.
    const text = lines('Got the label.', '', 'From: Shop Support <support@shop.example>', 'Date: Tuesday, 12 March 2024 at 14:02', 'To: Olivia', 'Subject: Re: Return label', '', 'Here it is.');
    expect(stripQuotes(text)).toBe('Got the label.');
  });
});

describe('stripQuotes: forwarded mail is the message', () => {
  it('keeps everything from a Gmail forward marker on, quotes included', () => {
    // Guards against: an agent receiving "FYI" with the forwarded mail stripped away.
    const text = lines(
      'FYI',
      '',
      '---------- Forwarded message ---------',
      'From: Karl <karl@example.de>',
      'Date: Tue, Mar 5, 2024 at 8:14 AM',
      'Subject: Lieferung',
      'To: <vertrieb@shop.example>',
      '',
      'Bitte erst in KW 11 liefern.',
      '> Am 01.03.2024 schrieb Vertrieb:',
      '> KW 10 geplant.',
      '-- ',
      'Karl Weber',
    );
    expect(stripQuotes(text)).toBe(text);
  });

  it('keeps an Apple "Begin forwarded message:", also when Apple quoted the whole forward', () => {
    // Guards against: Apple Mail's forward (a <blockquote type="cite">) being dropped as a quote.
    const plain = lines('Look at this.', '', 'Begin forwarded message:', '', 'From: DPD', 'Subject: Parcel returned', '', 'Address not found.');
    expect(stripQuotes(plain)).toBe(plain);
    const quoted = lines('Look at this.', '', '> Begin forwarded message:', '>', '> From: DPD', '> Subject: Parcel returned', '>', '> Address not found.');
    expect(stripQuotes(quoted)).toBe(lines('Look at this.', '', 'Begin forwarded message:', '', 'From: DPD', 'Subject: Parcel returned', '', 'Address not found.'));
  });

  it('keeps an Outlook block whose subject is FW:', () => {
    // Guards against: Outlook forwards (same block as a reply) losing the forwarded mail.
    const text = lines('Can you help?', '', '________________________________', 'From: Warehouse', 'Sent: Wednesday', 'To: Mark', 'Subject: FW: Delivery note missing', '', 'No delivery note.');
    expect(stripQuotes(text)).toBe(text);
  });

  it('still strips a quoted forward marker that sits inside quoted history', () => {
    // Guards against: a reply to a forward reposting the whole forward chain.
    const text = lines('Done, thanks.', '', 'On Mon, 4 Mar 2024 at 09:12, Tom wrote:', '> ---------- Forwarded message ---------', '> From: Karl', '> old text');
    expect(stripQuotes(text)).toBe('Done, thanks.');
  });
});

describe('stripQuotes: signatures', () => {
  it('removes "-- " and everything after it', () => {
    // Guards against: every message ending in the customer's phone number and job title.
    expect(stripQuotes(lines('Open on Saturday?', '', '-- ', 'John Smith', 'Senior Buyer'))).toBe('Open on Saturday?');
  });

  it('does not treat "--" without the space, or "-- " inside a line, as the delimiter', () => {
    // Guards against: cutting a message at a dash line that is part of the text.
    const text = lines('Options:', '--', 'A -- cheap', 'B -- fast');
    expect(stripQuotes(text)).toBe(text);
  });

  it('removes the signature but keeps a forwarded message below it', () => {
    // Guards against: Thunderbird's "signature above the forward" layout losing the forward.
    const text = lines('See below.', '-- ', 'Marta | Sales', '', '-------- Forwarded Message --------', 'Subject: Bulk order', '', '500 units?');
    expect(stripQuotes(text)).toBe(lines('See below.', '', '-------- Forwarded Message --------', 'Subject: Bulk order', '', '500 units?'));
  });
});

describe('stripQuotes: never strips everything', () => {
  it('returns the whole text when only quotes or a signature would be left', () => {
    // Guards against: a blank chat message when the customer answered inside the quote or sent only a signature.
    const quoteOnly = lines('On Mon, 4 Mar 2024 at 09:12, Tom wrote:', '> Is 43 fine?', '> yes 43 please');
    expect(stripQuotes(quoteOnly)).toBe(quoteOnly);
    const signatureOnly = lines('-- ', 'John Smith');
    expect(stripQuotes(signatureOnly)).toBe(signatureOnly);
  });

  it('accepts CRLF text and trims the blank lines the cuts leave', () => {
    // Guards against: "\r" residue and trailing blank lines in the chat.
    expect(stripQuotes('Thanks!\r\n\r\n\r\n> old\r\n')).toBe('Thanks!');
  });
});
