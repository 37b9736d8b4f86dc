/**
 * Node.js built-ins whose ES module namespace costs more than the module. An
 * `import … from 'node:http'` builds the namespace from every export,
 * reading the lazy ones too: `node:http`'s WebSocket, MessageEvent and
 * CloseEvent load Node's own bundled undici, 12 MiB that a process which
 * `require`s the module never holds; `node:util`'s lazy exports load parts of
 * assert (1 MiB). So they are taken by `require` here, their types from the
 * modules (docs/decisions/footprint.md). `import type` of them costs nothing.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const http = require('node:http') as typeof import('node:http');
const util = require('node:util') as typeof import('node:util');

export const { STATUS_CODES, createServer } = http;
export const { parseArgs, types } = util;
