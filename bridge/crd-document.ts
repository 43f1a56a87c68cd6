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

const str = { type: 'string' };

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
