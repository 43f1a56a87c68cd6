/**
 * `cloudorch version`: the CLI's version, and the target's: the policy bundle revision it judges with
 * and the stack's version. `--version` (main.ts) prints the CLI's alone, without a target.
 */
import { Option } from 'commander';
import type { Cli } from '../cli.js';
import { cliVersion } from '../config/cli-version.js';
import { factText } from '../config/stack-facts.js';
import type { Output } from '../format.js';
import type { TargetFacts } from '../target.js';
import { EXIT } from './exit.js';

function render(o: Output, format: string, cli: string, facts: TargetFacts | { error: string }): void {
  if (format === 'json') {
    o.out(
      JSON.stringify(
        { cliVersion: cli, ...('error' in facts ? { targetError: facts.error } : facts) },
        null,
        2,
      ),
    );
    return;
  }
  o.out(`cli version:      ${cli}`);
  if ('error' in facts) return;
  o.out(`target:           ${facts.target}`);
  o.out(`stack version:    ${factText(facts.stackVersion)}`);
  o.out(`policy revision:  ${factText(facts.policyRevision)}`);
  if (facts.policyBundle) o.out(`policy bundle:    ${facts.policyBundle}`);
}

/** The CLI's version always; the target's facts, or exit 1 when there is no target to ask. */
async function versionCommand(cli: Cli, format: string): Promise<number> {
  const o = cli.o();
  let facts: TargetFacts;
  try {
    const t = await cli.target();
    try {
      facts = await t.facts();
    } finally {
      t.close();
    }
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    render(o, format, cliVersion(), { error });
    o.err(`error: ${error}`);
    return EXIT.error;
  }
  render(o, format, cliVersion(), facts);
  return EXIT.ok;
}

export function registerVersion(cli: Cli): void {
  cli.program
    .command('version')
    .description("print the CLI's version and the target's (policy bundle revision, stack version)")
    .addOption(
      new Option('-o, --output <format>', 'table or json').choices(['table', 'json']).default('table'),
    )
    .action(async (opts: { output: string }) => {
      process.exitCode = await versionCommand(cli, opts.output);
    });
}
