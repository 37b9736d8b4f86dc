// The Node.js version every entry point needs, checked before anything else
// loads: plain JavaScript that any Node.js parses, so an older one says why
// it cannot run the gateway instead of failing on an import it lacks
// (`enableCompileCache`, TypeScript's type stripping). Used by the
// `threadgate` command (threadgate.js) and by `npm test` (scripts/require-node24).
export const NEEDED_MAJOR = 24;

/** The line an older Node.js gets; undefined when `version` (e.g. `v24.1.0`) is recent enough. */
export function tooOldLine(version, neededMajor = NEEDED_MAJOR) {
  const major = Number(/^v?(\d+)/.exec(version)?.[1] ?? 0);
  if (major >= neededMajor) return undefined;
  return (
    `threadgate needs Node.js ${neededMajor} or later; this is Node.js ${version}. ` +
    `Run it through scripts/with-node24 (e.g. scripts/with-node24 npm start), which installs Node.js ${neededMajor} into ~/.cache/threadgate once, or install Node.js ${neededMajor}.`
  );
}

/** Prints that line on stderr and exits 1 when this Node.js is too old. */
export function requireNode(neededMajor = NEEDED_MAJOR) {
  const line = tooOldLine(process.version, neededMajor);
  if (line === undefined) return;
  process.stderr.write(`${line}\n`);
  process.exit(1);
}
