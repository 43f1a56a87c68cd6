/** `cloudorch describe`: conditions with reasons and hints, observed state, last plan, policy, history. */
import type { Output } from '../format.js';
import { age, paint } from '../format.js';
import type { Target } from '../target.js';
import { EXIT } from './exit.js';
import { listRecords } from './get.js';

export async function describeCommand(t: Target, o: Output, name: string): Promise<number> {
  const r = (await listRecords(t)).find((x) => x.id === name || x.id.endsWith(`/${name}`));
  if (!r) {
    o.err(`error: cloudcluster ${name} not found`);
    return EXIT.error;
  }
  const now = new Date();
  const s = r.status;
  o.out(`Name:          ${r.id}`);
  o.out(`Cluster:       ${r.spec.clusterName} (${r.spec.region})`);
  o.out(`Generation:    ${r.generation}  (observed ${s?.observedGeneration ?? '-'})`);
  o.out(`Ready:         ${s?.ready ?? 'Unknown'}    Synced: ${s?.synced ?? 'Unknown'}`);
  if (r.deletionRequestedAt)
    o.out(
      `Deleting:      requested ${age(r.deletionRequestedAt, now)} ago (deletionPolicy ${r.spec.deletionPolicy})`,
    );
  if (s?.remediation) o.out(`Remediation:   ${paint(o, 'yellow', s.remediation)}`);
  o.out('Conditions:');
  for (const c of s?.conditions ?? []) {
    const mark =
      c.status === 'True'
        ? paint(o, 'green', c.status)
        : c.status === 'False'
          ? paint(o, 'red', c.status)
          : c.status;
    o.out(
      `  ${c.type.padEnd(16)} ${mark.padEnd(5)} ${c.reason} (${age(c.lastTransitionTime, now)}): ${c.message}${c.remediation ? `\n${' '.repeat(20)}hint: ${c.remediation}` : ''}`,
    );
  }
  const ob = s?.observed;
  o.out('Observed:');
  o.out(
    ob
      ? `  health ${ob.health}, version ${ob.version ?? '-'}, ${ob.nodeCount ?? '-'} x ${ob.instanceType ?? '-'} (${ob.capacityType ?? '-'})\n  arn ${ob.arn ?? '-'}\n  endpoint ${ob.endpoint ?? '-'}`
      : '  nothing observed yet',
  );
  o.out(
    `Estimated cost: ${s?.estimatedMonthlyCost === undefined ? '-' : `$${s.estimatedMonthlyCost.toFixed(2)}/month`}`,
  );
  o.out('Last plan:');
  for (const p of s?.lastPlan?.length ? s.lastPlan : ['(nothing to do)']) o.out(`  - ${p}`);
  o.out('Policy:');
  for (const v of s?.violations?.length ? s.violations : [])
    o.out(`  - [${v.severity}] ${v.rule}: ${v.message}`);
  if (!s?.violations?.length) o.out('  no violations');
  if (s?.lastDrift?.length) {
    o.out('Last drift:');
    for (const d of s.lastDrift) o.out(`  - ${d.field}: want ${d.desired}, found ${d.observed}`);
  }
  o.out('History (newest last):');
  for (const h of (r.history ?? []).slice(-15))
    o.out(`  ${h.at}  g${h.generation}  ${h.kind.padEnd(9)} ${h.summary}`);
  return EXIT.ok;
}
