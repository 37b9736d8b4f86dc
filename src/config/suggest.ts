/**
 * "Did you mean …?" for a misspelt settings key or connector type: the known
 * word closest to what was written, when it is close enough to be a typo —
 * at most two edits away (Levenshtein), or one is the start of the other
 * (`retention` for `retention_days`). Compared without regard to case, with
 * `-` read as `_`.
 */

const MAX_EDITS = 2;
/** A prefix shorter than this says little (`p` starts half the keys). */
const MIN_PREFIX = 4;

/** The number of single-character insertions, deletions and substitutions that turn `a` into `b`. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length]!;
}

const normal = (word: string): string => word.toLowerCase().replaceAll('-', '_');

/** The candidate `word` is most likely a typo of, or undefined when none is close. */
export function closestWord(word: string, candidates: Iterable<string>): string | undefined {
  const written = normal(word);
  let best: { candidate: string; score: number } | undefined;
  for (const candidate of candidates) {
    const known = normal(candidate);
    if (known === written) return candidate;
    const edits = editDistance(written, known);
    const prefix = Math.min(written.length, known.length) >= MIN_PREFIX && (known.startsWith(written) || written.startsWith(known));
    // Two edits turn any short word into another (`id` into `url`): up to three letters, one.
    const typo = edits <= (Math.max(written.length, known.length) <= 3 ? 1 : MAX_EDITS);
    if (!typo && !prefix) continue;
    const score = typo ? edits : MAX_EDITS + 1;
    if (best === undefined || score < best.score) best = { candidate, score };
  }
  return best?.candidate;
}

/** ` — did you mean \`token\`?`, or the empty string when nothing is close. */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const close = closestWord(word, candidates);
  return close === undefined ? '' : ` — did you mean \`${close}\`?`;
}
