/**
 * Credentials in query strings, redacted in text (a whole log line, as
 * written): in every `?name=value`, `&name=value` or `;name=value` whose name
 * is credential-like, the value becomes `[redacted]`. Names are compared
 * case-insensitively after percent-decoding (`%74oken`, `Access_Token`). A
 * value ends at `&`, `;`, `#`, a quote, `<`, `>` or white space; JSON escapes
 * inside it (`\"`) are part of it, so a value cannot end early and leave a tail.
 */

export const QUERY_REDACTED = '[redacted]';

/** Names whose values are credentials, as the issue lists them and as OAuth and common APIs name them. */
const CREDENTIAL_NAMES = new Set([
  'token', 'key', 'api_key', 'apikey', 'access_token', 'refresh_token', 'id_token', 'auth',
  'secret', 'client_secret', 'password', 'passwd', 'pwd', 'sig', 'signature', 'code',
]);
/** …and any name ending in one of these after `_` or `-` (`auth_token`, `x-api-key`, `webhook_secret`). */
const CREDENTIAL_SUFFIX = /[_-](token|key|secret|password|signature)$/;

const PARAMETER = /([?&;])([^=&;#?"'<>\s\\]+)=((?:\\.|[^&;#"'<>\s\\])*)/g;

function nameOf(raw: string): string {
  const spaced = raw.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced).trim().toLowerCase();
  } catch {
    return spaced.trim().toLowerCase();
  }
}

export function isCredentialName(raw: string): boolean {
  const name = nameOf(raw);
  return CREDENTIAL_NAMES.has(name) || CREDENTIAL_SUFFIX.test(name);
}

/** `text` with the value of every credential-like query parameter replaced by `[redacted]`. */
export function redactQueryCredentials(text: string): string {
  return text.replace(PARAMETER, (whole, sep: string, name: string, value: string) =>
    value !== '' && isCredentialName(name) ? `${sep}${name}=${QUERY_REDACTED}` : whole,
  );
}
