/**
 * Names, paths and ports shared by the binary and its manifests. The manifests are checked against
 * these by a test, so the path the webhook serves and the path the API server calls cannot diverge.
 */
import { API_VERSION, KIND } from '../lambdas/core/manifest.js';
import { ROLLOUT_KIND } from '../lambdas/core/rollout/manifest.js';

export const GROUP = API_VERSION.split('/')[0] as string;
export const VERSION = API_VERSION.split('/')[1] as string;
export const PLURAL = 'cloudclusters';
export const SINGULAR = 'cloudcluster';
export const CRD_NAME = `${PLURAL}.${GROUP}`;
export { API_VERSION, KIND, ROLLOUT_KIND };

/** CloudRollout: one change rolled across many clusters; same group and version. */
export const ROLLOUT_PLURAL = 'cloudrollouts';
export const ROLLOUT_SINGULAR = 'cloudrollout';
export const ROLLOUT_CRD_NAME = `${ROLLOUT_PLURAL}.${GROUP}`;

/** Held on every mirrored CR until its record says the cluster is gone (or retained). */
export const FINALIZER = `${GROUP}/bridge`;

/** The CloudCluster path the webhook server serves and the ValidatingWebhookConfiguration names. */
export const WEBHOOK_PATH = '/validate-cloudclusters';
/** The CloudRollout path, likewise. */
export const ROLLOUT_WEBHOOK_PATH = '/validate-cloudrollouts';
/** Every path the webhook server serves; a test checks each manifest path is one of them. */
export const WEBHOOK_PATHS = [WEBHOOK_PATH, ROLLOUT_WEBHOOK_PATH] as const;
export const HEALTHZ_PATH = '/healthz';
/** Readiness of the webhook (what the Service routes to): the server listens, the bundle is loaded. */
export const READYZ_PATH = '/readyz';
/** The mirror's health: watch, DynamoDB, leader election. Not a probe: it must not take the webhook out. */
export const MIRROR_HEALTH_PATH = '/readyz/mirror';

export const DEFAULT_PORTS = { webhook: 9443, health: 8081 } as const;

/** Where cert-manager's secret is mounted (the controller-runtime convention). */
export const DEFAULT_CERT_DIR = '/tmp/k8s-webhook-server/serving-certs';
export const CERT_FILE = 'tls.crt';
export const KEY_FILE = 'tls.key';

export const DEPLOY = {
  namespace: 'cloudorch-system',
  name: 'cloudorch-bridge',
  webhookService: 'cloudorch-bridge-webhook',
  webhookName: 'validate.cloudclusters.compute.cloudorch.io',
  rolloutWebhookName: 'validate.cloudrollouts.compute.cloudorch.io',
  leaseName: 'cloudorch-bridge-leader',
} as const;
