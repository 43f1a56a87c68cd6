/**
 * `cloudorch apply -f`: validate every document (CloudClusters and CloudRollouts) first; write
 * nothing unless all are valid and every rollout can run on the fleet.
 */
import type { CloudClusterManifest } from '../../../lambdas/core/manifest.js';
import {
  DeletionInProgressError,
  RecordInvalidError,
  TargetChangeError,
  TargetClaimedError,
} from '../../../lambdas/store/errors.js';
import type { Cli } from '../cli.js';
import type { Output } from '../format.js';
import { loadManifests } from '../load.js';
import { fleetOf } from '../rollout-preview.js';
import type { Target } from '../target.js';
import { applyRollouts, rolloutRefusals } from './apply-rollout.js';
import { EXIT } from './exit.js';
import { addWaitOptions, type WaitRequest, type WaitTarget, waitFor, waitRequest } from './wait.js';

/** A cluster another record already holds, refused before anything is written (the store's
 * conditional claim still decides a race with a concurrent writer). */
async function claimRefusals(t: Target, manifests: readonly CloudClusterManifest[]): Promise<string[]> {
  const taken: string[] = [];
  for (const m of manifests) {
    const holder = await t.store.claimHolder(m.spec);
    if (holder && holder !== m.id)
      taken.push(
        `error: ${m.source}: spec.clusterName: cluster ${m.spec.clusterName} in ${m.spec.region} is already managed by record ${holder}`,
      );
  }
  return taken;
}

/** Writes each CloudCluster, one line each; what to wait for, and whether one failed. */
async function writeClusters(
  t: Target,
  o: Output,
  manifests: readonly CloudClusterManifest[],
): Promise<{ written: WaitTarget[]; failed: boolean }> {
  let failed = false;
  const written: WaitTarget[] = [];
  for (const m of manifests) {
    try {
      // The manifest's labels are the record's whole set: a label missing from it is removed.
      const r = await t.store.applySpec(m.id, m.spec, { labels: m.labels });
      o.out(
        `cloudcluster/${m.id} ${r.created ? 'created' : r.changed ? `configured (generation ${r.record.generation})` : r.labelsChanged ? `configured (labels only; generation ${r.record.generation} unchanged)` : 'unchanged'}`,
      );
      written.push({ id: m.id, goal: { kind: 'ready', generation: r.record.generation } });
    } catch (err) {
      if (err instanceof DeletionInProgressError) {
        o.err(`error: cloudcluster/${m.id} is being deleted. ${err.remediation}`);
        failed = true;
      } else if (
        err instanceof TargetClaimedError ||
        err instanceof TargetChangeError ||
        err instanceof RecordInvalidError
      ) {
        o.err(`error: cloudcluster/${m.id}: ${err.message}`);
        failed = true;
      } else throw err;
    }
  }
  return { written, failed };
}

export async function applyCommand(
  t: Target,
  o: Output,
  files: string[],
  wait?: WaitRequest,
): Promise<number> {
  const { manifests, rollouts, issues } = await loadManifests(files);
  if (issues.length > 0) {
    for (const i of issues) o.err(`error: ${i.message}`);
    o.err('nothing was applied');
    return EXIT.error;
  }
  if (manifests.length === 0 && rollouts.length === 0) {
    o.err('error: no CloudCluster or CloudRollout documents found');
    return EXIT.error;
  }
  // Made before anything is written: a target without rollouts refuses the whole apply.
  const control = rollouts.length > 0 ? t.rollouts.control() : undefined;
  const refused = await claimRefusals(t, manifests);
  if (control) {
    const fleet = await fleetOf(t.store, manifests);
    const lines = await rolloutRefusals(control.rollouts, rollouts, fleet);
    refused.push(...lines.map((l) => `error: ${l}`));
  }
  if (refused.length > 0) {
    for (const line of refused) o.err(line);
    o.err('nothing was applied');
    return EXIT.error;
  }
  const { written, failed } = await writeClusters(t, o, manifests);
  // A rollout starts only once the clusters of this apply are written: its plan reads them.
  if (control && !failed) await applyRollouts(control, o, rollouts);
  else if (control)
    o.err('error: the CloudRollouts were not applied, as a CloudCluster of this apply failed');
  if (!wait || written.length === 0) return failed ? EXIT.error : EXIT.ok;
  const waited = await waitFor(t.store, o, written, wait);
  return failed ? EXIT.error : waited;
}

export function registerApply({ program, o, withTarget }: Cli): void {
  const cmd = program
    .command('apply')
    .description(
      'create or update CloudClusters, and create and start CloudRollouts, from manifests (YAML or JSON, several documents per file)',
    )
    .requiredOption('-f, --file <path...>', 'files, folders, or - for standard input');
  addWaitOptions(cmd, 'it is Ready at the applied generation').action(
    (opts: { file: string[]; wait?: boolean; timeout?: string }) => {
      const wait = waitRequest(opts);
      return withTarget((t) => applyCommand(t, o(), opts.file, wait));
    },
  );
}
