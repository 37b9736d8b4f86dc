/** The names a scaffolded connector goes by: its type, and the identifiers made of it. */

export interface Names {
  /** `chat-line`: the settings' `type`, the module's file name. */
  type: string;
  /** `chatLine`: the module's default import in its test. */
  camel: string;
  /** `ChatLine`: its types. */
  pascal: string;
  /** `CHAT_LINE`: the prefix of its environment variables. */
  env: string;
}

/** A type as `connector new` takes it: lower-case letters, digits and dashes, a letter first. */
export const SCAFFOLD_TYPE = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;

export function namesOf(type: string): Names {
  const words = type.split('-');
  const pascal = words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
  return { type, camel: pascal.charAt(0).toLowerCase() + pascal.slice(1), pascal, env: words.join('_').toUpperCase() };
}
