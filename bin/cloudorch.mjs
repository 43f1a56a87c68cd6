#!/usr/bin/env node
// Runs the TypeScript CLI through tsx's loader, so the CLI is always the checked-out source.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../local/cli/main.ts');
await main(process.argv);
