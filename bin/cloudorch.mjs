#!/usr/bin/env node
// Runs the compiled CLI (dist/cli.mjs). In a checkout (the TypeScript sources sit beside this
// file) dist/ is rebuilt first whenever the sources changed, so the CLI is always the checked-out
// code; an installed package runs the build it shipped with.
import { existsSync } from 'node:fs';
import { nodeVersionProblem } from './node-version.mjs';

const tooOld = nodeVersionProblem(process.versions.node);
if (tooOld) {
  process.stderr.write(`error: ${tooOld}\n`);
  process.exit(1);
}

// On a terminal, the handlers' structured logs and EMF metrics (meant for CloudWatch) are noise:
// warnings and errors still show; the dashboard reads metrics through its own sink.
process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
process.setSourceMapsEnabled(true);

if (existsSync(new URL('../local/cli/main.ts', import.meta.url))) {
  const { ensureDist } = await import('../scripts/build-dist.mjs');
  await ensureDist();
}
const { main } = await import('../dist/cli.mjs');
await main(process.argv);
