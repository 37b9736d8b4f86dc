/**
 * The HTML part of an agent's reply (connectors/email/html-reply.ts): the
 * text as written, escaped, in paragraphs and lines, with http(s) URLs and
 * addresses as links — and never anything the text could turn into markup.
 */
import { describe, expect, it } from 'vitest';
import { replyHtml } from '../../../connectors/email/html-reply.ts';

/** What replyHtml puts between the <div> and </div> of its document. */
const body = (text: string) => {
  const html = replyHtml(text);
  const open = '<div style="font-family:sans-serif">';
  return html.slice(html.indexOf(open) + open.length, html.lastIndexOf('</div>')).trim();
};

describe('replyHtml: the document', () => {
  it('is a minimal UTF-8 document with no scripts, style sheets or remote resources', () => {
    const html = replyHtml('Hello');
    expect(html).toMatch(/^<!doctype html>\n<html><head><meta charset="utf-8"><\/head>\n<body><div style="font-family:sans-serif">\n<p>Hello<\/p>\n<\/div><\/body><\/html>\n$/);
    expect(html).not.toMatch(/<script|<link|<img|<style|src=/i);
  });

  it('an empty or blank text gives the document without paragraphs', () => {
    // Guards against: an empty reply rendered as `<p></p>` or failing the send.
    expect(body('')).toBe('');
    expect(body(' \n\n \t\n')).toBe('');
    expect(replyHtml('')).toContain('<body><div style="font-family:sans-serif">');
  });
});

describe('replyHtml: escaping', () => {
  it('shows <script> as text, never as markup', () => {
    // Guards against: an agent quoting code (or pasting a customer's) that the customer's mail client would run or hide.
    expect(body('<script>alert(1)</script>')).toBe('<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>');
  });

  it('escapes &, quotes and apostrophes', () => {
    expect(body(`Fish & Chips, "fresh" & 'hot' <b>`)).toBe('<p>Fish &amp; Chips, &quot;fresh&quot; &amp; &#39;hot&#39; &lt;b&gt;</p>');
    expect(body('&amp; stays as typed')).toBe('<p>&amp;amp; stays as typed</p>');
  });
});

describe('replyHtml: paragraphs and lines', () => {
  it('blank-line separated blocks become paragraphs; single line breaks become <br>', () => {
    expect(body('Hello Ann,\n\nline one\nline two\n\nBest,\nTom')).toBe(
      '<p>Hello Ann,</p>\n<p>line one<br>\nline two</p>\n<p>Best,<br>\nTom</p>',
    );
  });

  it('CRLF, several blank lines and blank lines with spaces separate paragraphs the same way', () => {
    expect(body('\r\n\r\nA\r\nB\r\n  \r\n\r\n\tC\n\n\n')).toBe('<p>A<br>\nB</p>\n<p>\tC</p>');
  });
});

describe('replyHtml: links', () => {
  it('links http and https URLs', () => {
    expect(body('See https://example.com/help and http://example.org')).toBe(
      '<p>See <a href="https://example.com/help">https://example.com/help</a> and <a href="http://example.org">http://example.org</a></p>',
    );
  });

  it('escapes & in the query as &amp; in both href and text, and leaves the full stop after it', () => {
    // Guards against: a raw & in an attribute, and a link that 404s because it swallowed the sentence's full stop.
    expect(body('Open https://example.com/a?b=1&c=2.')).toBe(
      '<p>Open <a href="https://example.com/a?b=1&amp;c=2">https://example.com/a?b=1&amp;c=2</a>.</p>',
    );
  });

  it.each([
    ['a comma', 'https://example.com/x, then', 'https://example.com/x', ', then'],
    ['a question mark and quote', 'is it "https://example.com/x"?', 'https://example.com/x', '&quot;?'],
    ['a closing parenthesis of the sentence', '(see https://example.com/x)', 'https://example.com/x', ')'],
    ['angle brackets around it', '<https://example.com/x>', 'https://example.com/x', '&gt;'],
    ['several marks', 'https://example.com/x!).', 'https://example.com/x', '!).'],
  ])('leaves %s outside the link', (_, text, url, after) => {
    expect(body(text)).toContain(`<a href="${url}">${url}</a>${after}</p>`);
  });

  it('keeps a closing parenthesis whose opening one is in the URL', () => {
    const url = 'https://en.wikipedia.org/wiki/Kettle_(disambiguation)';
    expect(body(`(${url}).`)).toBe(`<p>(<a href="${url}">${url}</a>).</p>`);
  });

  it('links bare e-mail addresses with mailto:', () => {
    expect(body('Write to ann.lee+shop@customer.example.com.')).toBe(
      '<p>Write to <a href="mailto:ann.lee+shop@customer.example.com">ann.lee+shop@customer.example.com</a>.</p>',
    );
  });

  it('an address inside a URL stays part of the URL', () => {
    expect(body('https://example.com/u/ann@example.com')).toBe(
      '<p><a href="https://example.com/u/ann@example.com">https://example.com/u/ann@example.com</a></p>',
    );
  });

  it('never links javascript:, data: or a scheme alone', () => {
    // Guards against: a text that becomes a script link in the customer's mail client.
    for (const text of ['javascript:alert(1)', 'JavaScript:alert(document.cookie)//', 'data:text/html,<b>x</b>', 'https:// and http://.']) {
      expect(body(text)).not.toContain('<a');
    }
    expect(body('javascript:alert(1)')).toBe('<p>javascript:alert(1)</p>');
  });

  it('a quote or angle bracket can never leave the href attribute', () => {
    const html = body(`https://example.com/?q='x'onmouseover=alert(1)`);
    expect(html).toBe(
      `<p><a href="https://example.com/?q=&#39;x&#39;onmouseover=alert(1)">https://example.com/?q=&#39;x&#39;onmouseover=alert(1)</a></p>`,
    );
    expect(body('https://example.com/"onmouseover="alert(1)')).toBe(
      '<p><a href="https://example.com/">https://example.com/</a>&quot;onmouseover=&quot;alert(1)</p>',
    );
  });
});
