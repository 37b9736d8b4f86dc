/**
 * No import circles among the relative imports of src/ and connectors/: a
 * file's imports form a tree a reader can follow down. A new circle fails
 * here with its files named; break it by moving what both sides need to
 * where it belongs (a type beside its contract, state below the rules that
 * use it), not with a late `import()`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/temp-dir.ts';
import { describeCircle, importCircles, importGraph, relativeImports, sourceFiles } from './import-graph.ts';

const root = resolve(import.meta.dirname, '../..');

describe('import circles', () => {
  it('src/ and connectors/ have none', () => {
    const files = [...sourceFiles(join(root, 'src')), ...sourceFiles(join(root, 'connectors'))];
    expect(files.length).toBeGreaterThan(300);
    const graph = importGraph(files);
    const edges = [...graph.values()].reduce((sum, targets) => sum + targets.length, 0);
    expect(edges).toBeGreaterThan(600);
    expect(importCircles(graph).map((circle) => describeCircle(root, circle))).toEqual([]);
  });

  it('finds a circle of three files, through type imports, re-exports and import()', () => {
    const dir = tempDir('circles-');
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'a.ts'), "import type { B } from './sub/b.ts';\nexport type A = B;\n");
    writeFileSync(join(dir, 'sub/b.ts'), "export { c } from '../c.ts';\nexport type B = string;\n");
    writeFileSync(join(dir, 'c.ts'), "export const c = () => import('./a.ts');\n");
    writeFileSync(join(dir, 'leaf.ts'), "import { c } from './c.ts';\nexport const leaf = c;\n");
    const circles = importCircles(importGraph(sourceFiles(dir)));
    expect(circles.map((circle) => describeCircle(dir, circle))).toEqual(['a.ts ↔ c.ts ↔ sub/b.ts']);
  });

  it('finds a file that imports itself, and ignores packages and node: imports', () => {
    const dir = tempDir('circles-');
    writeFileSync(join(dir, 'self.ts'), "import './self.ts';\nimport { z } from 'zod';\nimport 'node:fs';\n");
    expect(relativeImports(join(dir, 'self.ts'), "import './self.ts';\nimport { z } from 'zod';\n")).toEqual([join(dir, 'self.ts')]);
    expect(importCircles(importGraph(sourceFiles(dir))).map((circle) => describeCircle(dir, circle))).toEqual(['self.ts']);
  });
});
