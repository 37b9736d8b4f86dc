#!/usr/bin/env node
// `npm test`'s first step (its pretest): under a Node.js older than 24 it says
// so in one line, with how to get Node.js 24, and exits 1 before anything is
// installed or run. The same check as the `threadgate` command's.
import { requireNode } from '../src/cli/node-version.js';

requireNode();
