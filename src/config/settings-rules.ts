/**
 * The rules of the settings that span sections: connector names are unique,
 * and a real platform (platform.url) needs organization_id, token, a room_id
 * on every connector and a public_url it can reach. Each rule reads only the
 * sections it needs, so it runs whenever those are usable, whatever problems
 * the others have: `config check` then reports them in the same pass.
 */
import { localAddressKind, type LocalKind } from './local-address.ts';

/** What the rules read; a section that could not be parsed is absent. */
export interface RuleInput {
  platform?: { url?: string | undefined; organization_id?: string | undefined; token?: string | undefined } | undefined;
  server?: { public_url?: string | undefined } | undefined;
  /** The connector entries as written (any that is not a mapping is skipped). */
  connectors?: readonly unknown[] | undefined;
}

export interface RuleProblem {
  path: PropertyKey[];
  message: string;
}

const PUBLIC_URL_MEANING = 'the address the platform reaches this gateway at, e.g. https://threadgate.example.com';
const LOCAL_PHRASE: Record<LocalKind, string> = {
  loopback: 'a loopback address',
  'link-local': 'a link-local address',
  unspecified: 'the unspecified address',
};

export function settingsRuleProblems(input: RuleInput): RuleProblem[] {
  const problems: RuleProblem[] = [];
  const entries = (input.connectors ?? []).map((entry) => (isMapping(entry) ? entry : undefined));
  const seen = new Map<string, number>();
  entries.forEach((entry, i) => {
    if (typeof entry?.name !== 'string') return;
    const first = seen.get(entry.name);
    if (first === undefined) seen.set(entry.name, i);
    else problems.push({ path: ['connectors', i, 'name'], message: `duplicate connector name "${entry.name}" (also connectors[${first}])` });
  });
  const platform = input.platform;
  if (platform?.url === undefined) return problems;
  // Against a real platform these are needed; the embedded sandbox supplies its own.
  for (const key of ['organization_id', 'token'] as const) {
    if (platform[key] === undefined) problems.push({ path: ['platform', key], message: 'required when platform.url is set' });
  }
  entries.forEach((entry, i) => {
    if (entry !== undefined && entry.room_id === undefined) {
      problems.push({ path: ['connectors', i, 'room_id'], message: 'required when platform.url is set' });
    }
  });
  if (input.server !== undefined) {
    const publicUrlProblem = checkPublicUrl(platform.url, input.server.public_url);
    if (publicUrlProblem !== undefined) problems.push({ path: ['server', 'public_url'], message: publicUrlProblem });
  }
  return problems;
}

/**
 * A platform elsewhere posts agent replies to `public_url`, so it must be an
 * address that platform can reach. A platform on this machine's loopback can
 * reach a loopback gateway: then anything (or the default) goes.
 */
function checkPublicUrl(platformUrl: string, publicUrl: string | undefined): string | undefined {
  if (localAddressKind(platformUrl) === 'loopback') return undefined;
  if (publicUrl === undefined) return `required when platform.url is set — ${PUBLIC_URL_MEANING}`;
  const kind = localAddressKind(publicUrl);
  if (kind === undefined) return undefined;
  return `${publicUrl} is on ${LOCAL_PHRASE[kind]}, which the platform at ${platformUrl} cannot reach — set ${PUBLIC_URL_MEANING}`;
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
