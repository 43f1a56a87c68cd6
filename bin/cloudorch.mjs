#!/usr/bin/env node
// Runs the TypeScript CLI through tsx's loader, so the CLI is always the checked-out source.
import { register } from 'tsx/esm/api';

// On a terminal, the handlers' structured logs and EMF metrics (meant for CloudWatch) are noise:
// warnings and errors still show; the dashboard reads metrics through its own sink.
process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';

register();
const { main } = await import('../local/cli/main.ts');
await main(process.argv);
