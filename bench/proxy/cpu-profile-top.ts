/**
 * The top of a V8 CPU profile (`node --cpu-prof`), as the proxy benchmark's
 * notes quote it: self time per function and per package (or file of ours),
 * as a share of the busy time (idle, the program root and the garbage
 * collector's own node are shown apart).
 *   node bench/proxy/cpu-profile-top.ts <file.cpuprofile> [top=25]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg = '25'] = process.argv.slice(2);
if (!file) {
  console.error('usage: node bench/proxy/cpu-profile-top.ts <file.cpuprofile> [top]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));

/** `node_modules/<pkg>` (scoped too), `node:<module>`, or the file's path from the checkout. */
function ownerOf(url: string): string {
  if (url === '') return '(native)';
  if (url.startsWith('node:')) return url;
  const nm = url.lastIndexOf('node_modules/');
  if (nm !== -1) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  const at = url.search(/\/(src|bench|connectors)\//);
  return at === -1 ? url : url.slice(at + 1);
}

const special = new Set(['(idle)', '(program)', '(garbage collector)', '(root)']);
const fns = new Map<string, number>();
const owners = new Map<string, number>();
const apart = new Map<string, number>();
let busy = 0;
for (const [id, us] of selfUs) {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  if (special.has(functionName)) {
    apart.set(functionName, (apart.get(functionName) ?? 0) + us);
    if (functionName !== '(idle)') busy += us;
    if (functionName !== '(garbage collector)') continue;
  } else busy += us;
  const key = `${functionName || '(anonymous)'} ${ownerOf(url)}${url ? `:${lineNumber + 1}` : ''}`;
  fns.set(key, (fns.get(key) ?? 0) + us);
  const owner = special.has(functionName) ? functionName : ownerOf(url);
  owners.set(owner, (owners.get(owner) ?? 0) + us);
}
const pct = (us: number) => `${((100 * us) / busy).toFixed(1)} %`.padStart(7);
const top = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n);

console.log(`busy ${(busy / 1e6).toFixed(2)} s; ${[...apart].map(([k, v]) => `${k} ${(v / 1e6).toFixed(2)} s`).join(', ')}`);
console.log('\nself time by function (share of busy time)');
for (const [k, us] of top(fns, Number(topArg))) console.log(`${pct(us)}  ${k}`);
console.log('\nself time by package or file');
for (const [k, us] of top(owners, 20)) console.log(`${pct(us)}  ${k}`);
