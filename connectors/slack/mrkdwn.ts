/**
 * Slack's message text markup (https://api.slack.com/reference/surfaces/formatting)
 * both ways.
 *
 * In (a customer's message → the platform): the control sequences in angle
 * brackets become what Slack shows, and the three escaped characters are
 * unescaped —
 *
 *   <@U0123ABC>  <@U0123ABC|ann>   → @Ann (the name users.info gives; @ann, or @U0123ABC, when unknown)
 *   <#C0123ABC|support>            → #support
 *   <!here> <!channel> <!everyone> → @here @channel @everyone
 *   <!subteam^S012|@oncall>        → @oncall          <!date^…|Feb 18th> → Feb 18th
 *   <https://x.example|the docs>   → the docs (https://x.example)      <https://x.example> → https://x.example
 *   <mailto:ann@x.example|ann@x.example> → ann@x.example
 *   &lt; &gt; &amp;                → < > &
 *
 * Out (an agent's text → Slack): `&`, `<` and `>` are escaped, as Slack asks,
 * so an agent's text never turns into a mention or a link by accident;
 * Slack's own emphasis (`*bold*`, `_italic_`) stays as the agent wrote it.
 */

const SEQUENCE = /<([^<>]*)>/g;

/** The user ids a text mentions (`<@U…>`), to look up before `readableText`. */
export function mentionedUsers(text: string): string[] {
  const ids = new Set<string>();
  for (const [, inner] of text.matchAll(SEQUENCE)) {
    const match = /^@([UW][A-Z0-9]+)/.exec(inner!);
    if (match) ids.add(match[1]!);
  }
  return [...ids];
}

/** A customer's text as people read it in Slack; `names` maps user ids to display names. */
export function readableText(text: string, names: ReadonlyMap<string, string> = new Map()): string {
  const replaced = text.replace(SEQUENCE, (_whole, inner: string) => sequence(inner, names));
  return unescape(replaced).replace(/\r\n?/g, '\n').trim();
}

function sequence(inner: string, names: ReadonlyMap<string, string>): string {
  const bar = inner.indexOf('|');
  const target = bar < 0 ? inner : inner.slice(0, bar);
  const label = bar < 0 ? undefined : inner.slice(bar + 1);
  if (target.startsWith('@')) {
    const id = target.slice(1);
    return `@${names.get(id) ?? label ?? id}`;
  }
  if (target.startsWith('#')) return `#${label ?? target.slice(1)}`;
  if (target.startsWith('!')) {
    const word = target.slice(1);
    if (label !== undefined) return label.startsWith('@') || word.startsWith('date') ? label : `@${label}`;
    return word === 'here' || word === 'channel' || word === 'everyone' ? `@${word}` : `@${word.split('^')[0]}`;
  }
  const url = unescape(target);
  if (label === undefined || label === '') return url.replace(/^mailto:/, '');
  const shown = unescape(label);
  return shown === url || `mailto:${shown}` === url ? shown : `${shown} (${url})`;
}

function unescape(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** An agent's text for Slack: `&`, `<` and `>` escaped. */
export function escapeForSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
