/**
 * Settings for a reader that needs only part of them: the commands that read
 * or requeue from the store (`deliveries`, `inbound`, `jobs`, `replay`,
 * `migrate`) need `store`, `health` needs `server.host` and `server.port`.
 * An operator on a bastion or in a debug shell has the settings file but not
 * the service's environment, so a `${VAR}` elsewhere (a connector's secret,
 * the platform token) may be unset. Such a value is not read: its placeholder
 * stays as written and its path is listed in `unread`.
 *
 * A placeholder that its schema refuses (`url: ${PLATFORM_URL}` is no URL)
 * is dropped instead, and when a rule still complains about what was
 * dropped, its unit is reduced: a connector entry to its name and type, a
 * section to its defaults. Whatever the reader needs is checked as strictly
 * as ever, and any problem that no unset variable explains is reported.
 */
import { isAtOrUnder, type ConfigProblem } from './errors.ts';
import { checkSettings, type SettingsCheck } from './settings-check.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** `checkSettings` for a reader that needs only `needs`. */
export function checkNeededSettings(raw: Record<string, unknown>, env: Env, cwd: string, needs: readonly string[]): SettingsCheck {
  let current = raw;
  const dropped: ConfigProblem[] = [];
  for (let round = 0; ; round++) {
    const check = checkSettings(current, env, cwd, { needs });
    const unread = [...dropped, ...(check.unread ?? [])];
    const related = (path: string) => unread.some((u) => isAtOrUnder(path, u.path) || isAtOrUnder(u.path, path));
    if (check.settings !== undefined || round === 2 || check.problems.length === 0 || !check.problems.every((p) => related(p.path))) {
      return { ...check, unread };
    }
    // Every problem comes of a value left unread: drop those values (first round), then their whole units.
    for (const u of check.unread ?? []) if (check.problems.some((p) => isAtOrUnder(p.path, u.path))) dropped.push(u);
    const paths = check.problems.map((p) => p.path);
    current = round === 0 ? without(current, paths) : without(current, paths.map(unitOf), true);
  }
}

/** The unit a path belongs to: a connector entry (`connectors[2]`), else its section (`platform`). */
function unitOf(path: string): string {
  return /^connectors\[\d+\]/.exec(path)?.[0] ?? path.split(/[.[]/)[0]!;
}

/** `raw` without the values at `paths`; `reduce`: a connector entry keeps its name and type, a section becomes empty. */
function without(raw: Record<string, unknown>, paths: readonly string[], reduce = false): Record<string, unknown> {
  const copy = structuredClone(raw);
  for (const path of paths) {
    const keys = path.match(/[^.[\]]+/g) ?? [];
    const last = keys.pop();
    let parent: unknown = copy;
    for (const key of keys) parent = (parent as Record<string, unknown> | undefined)?.[key];
    if (last === undefined || parent === null || typeof parent !== 'object') continue;
    const holder = parent as Record<string, unknown>;
    if (!reduce) delete holder[last];
    else if (Array.isArray(holder)) {
      const entry = holder[Number(last)] as Record<string, unknown> | undefined;
      holder[Number(last)] = { name: entry?.name, type: entry?.type };
    } else holder[last] = {};
  }
  return copy;
}
