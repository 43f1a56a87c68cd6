/**
 * The cost model's second sample: clusters with 3 pools, 3 add-ons and 2 access entries, converged
 * through the real pipeline, then swept for two hours on the reconciler's clock at the deployed
 * periods (checks every 5 minutes, a full look once an hour), so each cluster's full look is in the
 * window twice. What one sweep look costs such a cluster is measured here; the cost model prices it
 * beside the one-pool cluster.
 */
import { benchSpec, type Member, members } from './fleet.js';
import { converge, startBench } from './pipeline.js';
import { origin } from './probes.js';
import type { LookFigures } from './sweep-cost.js';

const ACCOUNT = '000000000000';
const RICH = {
  nodeGroups: [
    { name: 'system', instanceTypes: ['t3.large'], nodeCount: 2 },
    { name: 'general', instanceTypes: ['m6i.large'], nodeCount: 3 },
    {
      name: 'spot',
      instanceTypes: ['m5.large', 'm6i.large'],
      capacityType: 'SPOT' as const,
      nodeCount: 2,
      minSize: 0,
      maxSize: 10,
    },
  ],
  addons: [{ name: 'vpc-cni' }, { name: 'coredns' }, { name: 'kube-proxy' }],
  access: {
    entries: [
      {
        principalArn: `arn:aws:iam::${ACCOUNT}:role/platform-admin`,
        policies: [{ name: 'AmazonEKSClusterAdminPolicy' as const }],
      },
      {
        principalArn: `arn:aws:iam::${ACCOUNT}:role/developers`,
        kubernetesGroups: ['developers'],
        policies: [
          { name: 'AmazonEKSEditPolicy' as const, scope: 'namespace' as const, namespaces: ['team-a'] },
        ],
      },
    ],
  },
};

export interface RichLooks extends LookFigures {
  readonly clusters: number;
  readonly sweeps: number;
  /** Scan read units per record per sweep (records of such clusters are larger). */
  readonly scanPerRecord: number;
}

export async function measureRichLooks(
  size = 5,
  sweeps = 24,
  periodS = 300,
  fullPeriodS = 3600,
): Promise<RichLooks> {
  const clock = { ms: Date.now() };
  const { cp, m } = await startBench({ now: () => new Date(clock.ms) });
  try {
    const fleet: Member[] = members('rich', 0, size);
    await converge(cp, m, fleet, (f) => benchSpec(f.name, f.region, RICH));
    m.eks.clear();
    m.meter.reset();
    let localMs = 0;
    for (let i = 0; i < sweeps; i++) {
      clock.ms += periodS * 1000;
      const t = performance.now();
      await origin.run('sweep', () =>
        cp.sweepNow({ periodSeconds: periodS, fullObservePeriodSeconds: fullPeriodS }),
      );
      localMs += performance.now() - t;
      await cp.settle();
    }
    const looks = sweeps * size;
    return {
      clusters: size,
      sweeps,
      callsPerLook: m.eks.requests.filter((r) => r.origin === 'sweep').length / looks,
      localMsPerLook: localMs / looks,
      scanPerRecord: m.meter.scanUnits / looks,
    };
  } finally {
    await cp.stop();
  }
}
