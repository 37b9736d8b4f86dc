#!/usr/bin/env node
// The `threadgate` command's entry, in plain JavaScript. It first checks the
// Node.js version (node-version.js): an older Node.js is told, in one line,
// that it needs 24 and how to get it. Then Node's compile cache is turned on,
// before the first TypeScript file loads, so a start whose cache is warm
// never loads the type stripper (40 ms and 17 MiB of every start;
// docs/benchmarks.md, "Start-up"). The command itself is main.ts, which also
// runs directly (`node src/cli/main.ts`) and then turns the cache on for the
// modules its commands load.
// NODE_COMPILE_CACHE names the cache's folder (default: the system's temp
// folder); NODE_DISABLE_COMPILE_CACHE=1 turns it off.
import { requireNode } from './node-version.js';

requireNode();
// Imported here, not above: an older Node.js has no `enableCompileCache`, and a
// static import of it would fail before the check above could run.
const { enableCompileCache } = await import('node:module');
enableCompileCache();
await import('./main.ts');
