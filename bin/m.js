#!/usr/bin/env node
// The `m` command. The platform's Node code is TypeScript run through tsx, so there is no build step
// between editing the backend and running it.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
