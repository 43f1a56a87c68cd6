/**
 * Generates the CloudCluster CRD from the spec schema (the one source), converted to a Kubernetes
 * structural schema. The committed `deploy/crd.yaml` is this function's output, and
 * `deploy/rollout-crd.yaml` is rollout-crd.ts's; a test checks both.
 * Regenerate both with `npx tsx bridge/crd.ts`.
 */

import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { specJsonSchema } from '../lambdas/core/spec/schema.js';
import { CRD_NAME, KIND, PLURAL, SINGULAR } from './constants.js';
import { crdDocument } from './crd-document.js';
import { ROLLOUT_CRD_FILE, renderRolloutCrd } from './rollout-crd.js';
import { toStructural } from './structural.js';

export { SchemaConversionError, toStructural } from './structural.js';

type Json = Record<string, unknown>;

const str = { type: 'string' };
const int = { type: 'integer', format: 'int64' };

const strings = { type: 'array', items: str };

/** One pool as the last run observed it (ObservedPool in lambdas/core/status.ts). */
const observedPool: Json = {
  type: 'object',
  required: ['name', 'status'],
  properties: {
    name: str,
    nodegroup: str,
    status: str,
    version: str,
    nodeCount: int,
    minSize: int,
    maxSize: int,
    instanceTypes: strings,
    capacityType: str,
    labels: { type: 'object', additionalProperties: str },
    taints: {
      type: 'array',
      items: {
        type: 'object',
        required: ['key', 'effect'],
        properties: { key: str, value: str, effect: str },
      },
    },
    otherNodegroups: strings,
  },
};

/** One listed add-on as the last run observed it (AddonSummary in lambdas/core/status-parts.ts). */
const observedAddon: Json = {
  type: 'object',
  required: ['name', 'status'],
  properties: { name: str, version: str, status: str, issues: strings },
};

/** The authentication mode and access entries (AccessSummary in lambdas/core/status.ts). */
const observedAccess: Json = {
  type: 'object',
  required: ['authenticationMode'],
  properties: {
    authenticationMode: str,
    entries: {
      type: 'array',
      items: {
        type: 'object',
        required: ['principalArn', 'type', 'policies', 'listed'],
        properties: { principalArn: str, type: str, policies: strings, listed: { type: 'boolean' } },
      },
    },
  },
};

/** What the bridge writes to `/status` (see status-writeback.ts). */
export const statusSchema: Json = {
  type: 'object',
  properties: {
    conditions: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['type'],
      items: {
        type: 'object',
        required: ['type', 'status'],
        properties: {
          type: str,
          status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
          reason: str,
          message: str,
          remediation: str,
          lastTransitionTime: { type: 'string', format: 'date-time' },
          observedGeneration: int,
        },
      },
    },
    observedGeneration: int,
    observed: {
      type: 'object',
      properties: {
        health: str,
        version: str,
        nodeCount: int,
        poolCount: int,
        pools: { type: 'array', items: observedPool },
        foreign: strings,
        orphan: strings,
        endpoint: str,
        arn: str,
        // Status carries it; without it here the API server prunes it and every resync re-patches.
        owned: { type: 'boolean' },
        addons: { type: 'array', items: observedAddon },
        access: observedAccess,
      },
    },
    estimatedMonthlyCost: { type: 'number' },
    remediation: str,
    violations: {
      type: 'array',
      items: { type: 'object', properties: { rule: str, message: str, severity: str } },
    },
  },
};

const condition = (type: string) => `.status.conditions[?(@.type=="${type}")].status`;

/**
 * READY and SYNCED are read from the conditions: there is no boolean that could disagree. NODES is
 * the desired size summed over every node group, POOLS the spec's pool count.
 */
export const PRINTER_COLUMNS = [
  { name: 'READY', type: 'string', jsonPath: condition('Ready') },
  { name: 'SYNCED', type: 'string', jsonPath: condition('Synced') },
  { name: 'VERSION', type: 'string', jsonPath: '.status.observed.version' },
  { name: 'NODES', type: 'integer', jsonPath: '.status.observed.nodeCount' },
  { name: 'POOLS', type: 'integer', jsonPath: '.status.observed.poolCount' },
  { name: 'COST', type: 'number', jsonPath: '.status.estimatedMonthlyCost' },
  { name: 'AGE', type: 'date', jsonPath: '.metadata.creationTimestamp' },
] as const;

export function buildCrd(): Json {
  return crdDocument({
    name: CRD_NAME,
    kind: KIND,
    plural: PLURAL,
    singular: SINGULAR,
    shortName: 'cc',
    printerColumns: PRINTER_COLUMNS,
    spec: toStructural(specJsonSchema()),
    status: statusSchema,
  });
}

export const CRD_FILE = join(dirname(fileURLToPath(import.meta.url)), 'deploy', 'crd.yaml');

export function renderCrd(): string {
  return `# Generated by bridge/crd.ts from lambdas/core/spec/schema.ts. Do not edit.\n${stringify(buildCrd(), { aliasDuplicateObjects: false })}`;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeFileSync(CRD_FILE, renderCrd());
  console.log(`wrote ${CRD_FILE}`);
  writeFileSync(ROLLOUT_CRD_FILE, renderRolloutCrd());
  console.log(`wrote ${ROLLOUT_CRD_FILE}`);
}
