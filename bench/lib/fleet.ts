/**
 * Fleets for the benchmarks. One template cluster is converged through the real pipeline; the
 * fleet is then cloned from it, records written with BatchWriteItem and clusters put straight into
 * the simulator's state, so 10,000 converged clusters take seconds instead of hours. Cloning from a
 * real converged pair keeps record sizes (which DynamoDB bills) and EKS responses realistic.
 */
import { BatchWriteCommand, DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { OWNER_TAG } from '../../lambdas/core/ownership.js';
import {
  type CloudClusterSpec,
  type CloudClusterSpecInput,
  specSchema,
} from '../../lambdas/core/spec/schema.js';
import { specHash } from '../../lambdas/store/spec-hash.js';
import type { ClusterRec } from '../../local/eks-sim/model.js';
import type { ControlPlane } from '../../local/runtime/control-plane.js';
import { type Metered, TABLE } from './probes.js';

/** Regions the fleets are spread over (all in the policy allowlist). */
export const REGIONS = [
  'us-east-1',
  'us-east-2',
  'us-west-2',
  'eu-west-1',
  'eu-central-1',
  'eu-north-1',
  'ap-northeast-1',
  'ap-southeast-1',
  'ap-southeast-2',
  'ca-central-1',
] as const;

export function benchSpec(
  clusterName: string,
  region: string,
  over: Partial<CloudClusterSpecInput> = {},
): CloudClusterSpec {
  return specSchema.parse({
    provider: 'aws',
    region,
    clusterName,
    kubernetesVersion: '1.34',
    // The seed's one pool, unless the caller lists pools (a spec takes one form or the other).
    ...(over.nodeGroups ? {} : { nodeCount: 2, instanceType: 't3.medium' }),
    tags: { team: 'platform', environment: 'bench' },
    deletionPolicy: 'Delete',
    ...over,
  });
}

export interface Member {
  readonly id: string;
  readonly name: string;
  readonly region: string;
}

export function members(prefix: string, from: number, to: number): Member[] {
  return Array.from({ length: to - from }, (_, k) => {
    const i = from + k;
    const name = `${prefix}-${String(i).padStart(5, '0')}`;
    return { id: `fleet/${name}`, name, region: REGIONS[i % REGIONS.length]! };
  });
}

export interface Template {
  readonly member: Member;
  readonly item: Record<string, unknown>;
  readonly cluster: ClusterRec;
}

const TEMPLATE: Member = { id: 'fleet/tplzq', name: 'tplzq', region: 'us-east-1' };

/** Converges the template through the real pipeline (create, status Ready) and captures both sides. */
export async function convergeTemplate(cp: ControlPlane, m: Metered): Promise<Template> {
  await m.store.applySpec(TEMPLATE.id, benchSpec(TEMPLATE.name, TEMPLATE.region));
  await cp.settle();
  const doc = DynamoDBDocumentClient.from(m.ddb);
  const { Item } = await doc.send(new GetCommand({ TableName: TABLE, Key: { id: TEMPLATE.id } }));
  if (!Item || (Item.status as { ready?: boolean } | undefined)?.ready !== true)
    throw new Error('the template cluster did not converge');
  return { member: TEMPLATE, item: Item, cluster: cp.sim.state.cluster(TEMPLATE.region, TEMPLATE.name) };
}

/**
 * A copy of cluster `t` as member `m`'s: names, region (and, given `account`, the account in its
 * ARNs) renamed, owned by `m`'s record, with no updates or faults in flight.
 */
export function cloneCluster(t: ClusterRec, m: Member, account?: { from: string; to: string }): ClusterRec {
  const swap = (s: string) => (account ? s.replaceAll(`:${account.from}:`, `:${account.to}:`) : s);
  const rename = (s: string) => swap(s.replaceAll(t.name, m.name).replaceAll(t.region, m.region));
  const retag = (tags: Record<string, string>) => ({ ...tags, [OWNER_TAG]: m.id });
  const nodegroups = new Map(
    [...t.nodegroups].map(([k, ng]) => [
      k,
      {
        ...ng,
        clusterName: m.name,
        arn: rename(ng.arn),
        nodeRole: rename(ng.nodeRole),
        scaling: { ...ng.scaling },
        instanceTypes: [...ng.instanceTypes],
        labels: { ...ng.labels },
        tags: retag(ng.tags),
        healthIssues: [],
      },
    ]),
  );
  return {
    ...t,
    name: m.name,
    ...(account ? { account: account.to } : {}),
    arn: rename(t.arn),
    roleArn: rename(t.roleArn),
    region: m.region,
    endpoint: rename(t.endpoint),
    tags: retag(t.tags),
    healthIssues: [],
    nodegroups,
    updates: [],
    failNext: new Map(),
  };
}

function cloneItem(tpl: Template, m: Member): Record<string, unknown> {
  const t = tpl.member;
  const text = JSON.stringify(tpl.item).replaceAll(t.name, m.name).replaceAll(t.region, m.region);
  const item = JSON.parse(text) as Record<string, unknown>;
  return { ...item, specHash: specHash(item.spec as CloudClusterSpec) };
}

/** Writes the records (25 per BatchWriteItem, a few batches in flight) and puts the clusters in EKS. */
export async function seedFleet(
  cp: ControlPlane,
  m: Metered,
  tpl: Template,
  fleet: readonly Member[],
): Promise<void> {
  for (const f of fleet) cp.sim.state.clusters(f.region).set(f.name, cloneCluster(tpl.cluster, f));
  await writeItems(
    m,
    fleet.map((f) => cloneItem(tpl, f)),
  );
}

/** Writes items straight to the table: 25 per BatchWriteItem, a few batches in flight. */
export async function writeItems(m: Metered, all: readonly Record<string, unknown>[]): Promise<void> {
  const doc = DynamoDBDocumentClient.from(m.ddb);
  const batches: Record<string, unknown>[][] = [];
  for (let i = 0; i < all.length; i += 25) batches.push(all.slice(i, i + 25));
  let next = 0;
  const worker = async () => {
    while (next < batches.length) {
      let items = batches[next++]!.map((Item) => ({ PutRequest: { Item } }));
      // BatchWriteItem may leave items unprocessed; resend them (bounded).
      for (let attempt = 0; items.length > 0; attempt++) {
        if (attempt > 10) throw new Error('BatchWriteItem kept leaving items unprocessed');
        const out = await doc.send(new BatchWriteCommand({ RequestItems: { [TABLE]: items } }));
        items = (out.UnprocessedItems?.[TABLE] ?? []) as typeof items;
      }
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
}
