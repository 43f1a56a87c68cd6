/**
 * The CustomResourceDefinition shape both kinds share (CloudCluster, CloudRollout): namespaced, one
 * served and stored version, a status subresource, printer columns, and a structural schema whose
 * spec comes from the kind's schema module and whose status the API server must not prune.
 */
import { GROUP, VERSION } from './constants.js';
import type { Json } from './structural.js';

export interface CrdParts {
  readonly name: string;
  readonly kind: string;
  readonly plural: string;
  readonly singular: string;
  readonly shortName: string;
  readonly printerColumns: readonly Json[];
  /** Structural schemas of spec and status. */
  readonly spec: Json;
  readonly status: Json;
}

/** The field types the status schemas are built from. */
export const CRD_STRING: Json = { type: 'string' };
export const CRD_INT: Json = { type: 'integer', format: 'int64' };
export const CRD_TIME: Json = { type: 'string', format: 'date-time' };
const str = CRD_STRING;

/**
 * `status.conditions` as both kinds write it: a list keyed by type (so `kubectl patch` merges one
 * condition), each with the fields every CloudOrch condition carries; `extra` fields follow the
 * message.
 */
export function conditionsSchema(extra: Readonly<Record<string, Json>> = {}): Json {
  return {
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
        ...extra,
        lastTransitionTime: CRD_TIME,
        observedGeneration: CRD_INT,
      },
    },
  };
}

export function crdDocument(p: CrdParts): Json {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: p.name },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: {
        kind: p.kind,
        listKind: `${p.kind}List`,
        plural: p.plural,
        singular: p.singular,
        shortNames: [p.shortName],
      },
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: p.printerColumns,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              required: ['spec'],
              properties: {
                apiVersion: str,
                kind: str,
                metadata: { type: 'object' },
                spec: p.spec,
                status: p.status,
              },
            },
          },
        },
      ],
    },
  };
}
