/**
 * The graph of relative imports among the project's own TypeScript files, and
 * the circles in it. Read from the sources' text: every `import … from './x.ts'`,
 * `export … from '../y.ts'` and `import('./z.ts')` whose specifier starts with
 * a dot. Type-only imports count too: a circle of types is still a circle a
 * reader has to hold in their head.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)(['"])(\.{1,2}\/[^'"]+)\1/gm;

/** Every `.ts` file under `dir`, skipping `node_modules`. */
export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** The relative imports of one file's text, as absolute paths. */
export function relativeImports(file: string, text: string): string[] {
  const found = new Set<string>();
  for (const match of text.matchAll(SPECIFIER)) {
    const spec = match[2]!;
    if (!/\.(ts|js|mjs|cjs)$/.test(spec)) continue;
    found.add(resolve(dirname(file), spec));
  }
  return [...found];
}

/** file → the files of the same set it imports. */
export function importGraph(files: string[]): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = relativeImports(file, readFileSync(file, 'utf8')).filter((t) => known.has(t));
    graph.set(file, targets);
  }
  return graph;
}

/**
 * The strongly connected components with more than one file (or a file that
 * imports itself), each sorted, found by Tarjan's algorithm.
 */
export function importCircles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];

  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      const selfLoop = component.length === 1 && (graph.get(node) ?? []).includes(node);
      if (component.length > 1 || selfLoop) circles.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return circles;
}

/** One circle as a line a reader can act on: its files, relative to `root`. */
export function describeCircle(root: string, circle: string[]): string {
  return circle.map((file) => relative(root, file)).join(' ↔ ');
}
