#!/usr/bin/env node
// The `threadgate` command's entry, in plain JavaScript: Node's compile cache is
// turned on here, before the first TypeScript file loads, so a start whose
// cache is warm never loads the type stripper (40 ms and 17 MiB of every
// start; docs/benchmarks.md, "The write path, fourteenth increment"). The
// command itself is main.ts, which also runs directly (`node src/cli/main.ts`)
// and then turns the cache on for the modules its commands load.
// NODE_COMPILE_CACHE names the cache's folder (default: the system's temp
// folder); NODE_DISABLE_COMPILE_CACHE=1 turns it off.
import { enableCompileCache } from 'node:module';

enableCompileCache();
await import('./main.ts');
