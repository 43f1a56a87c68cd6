/**
 * The bridge's command line. Every flag the Deployment passes is declared here and read by main.ts;
 * an unknown flag or a malformed value stops start-up with a message naming it, so a manifest can
 * never carry a flag the binary silently ignores. Syntax: `--name=value` or `--name value`; boolean
 * flags also accept a bare `--name`. A later occurrence overrides an earlier one.
 */
import { DEFAULT_CERT_DIR, DEFAULT_PORTS, DEPLOY } from './constants.js';

type Kind = 'string' | 'port' | 'seconds' | 'boolean';

interface FlagSpec {
  readonly kind: Kind;
  readonly help: string;
  readonly default?: string;
}

/** The flag table: the single list the parser, `--help` and the manifest test read. */
export const FLAGS = {
  'table-name': { kind: 'string', help: 'DynamoDB desired-state table (stack output TableName)' },
  'rollout-table-name': {
    kind: 'string',
    help: 'DynamoDB rollout table that CloudRollouts are mirrored to (stack output RolloutTableName)',
  },
  'rollout-state-machine-arn': {
    kind: 'string',
    help: 'Rollout state machine a mirrored CloudRollout starts (stack output RolloutStateMachineArn)',
  },
  'policy-bundle': {
    kind: 'string',
    help: 'policy bundle: s3://bucket/key (stack output PolicyBundleUrl) or a file path',
  },
  'policy-reload-seconds': { kind: 'seconds', default: '60', help: 'how often the bundle is re-checked' },
  'bind-address': { kind: 'string', default: '0.0.0.0', help: 'address the webhook and health servers bind' },
  'webhook-port': { kind: 'port', default: String(DEFAULT_PORTS.webhook), help: 'HTTPS admission port' },
  'webhook-cert-dir': {
    kind: 'string',
    default: DEFAULT_CERT_DIR,
    help: 'folder with tls.crt and tls.key (the mounted cert-manager secret)',
  },
  'health-port': {
    kind: 'port',
    default: String(DEFAULT_PORTS.health),
    help: 'HTTP port of /healthz, /readyz, /readyz/mirror',
  },
  'watch-namespace': { kind: 'string', default: '', help: 'namespace to mirror; empty means all namespaces' },
  'resync-seconds': {
    kind: 'seconds',
    default: '30',
    help: 'how often every CR is re-mirrored and its status re-read from DynamoDB',
  },
  'leader-elect': {
    kind: 'boolean',
    default: 'true',
    help: 'take a coordination.k8s.io Lease before writing',
  },
  'leader-election-namespace': { kind: 'string', default: DEPLOY.namespace, help: 'namespace of the Lease' },
  'leader-election-id': { kind: 'string', default: DEPLOY.leaseName, help: 'name of the Lease' },
  'lease-duration-seconds': { kind: 'seconds', default: '15', help: 'how long a Lease is valid unrenewed' },
  kubeconfig: { kind: 'string', default: '', help: 'kubeconfig file; empty means KUBECONFIG or in-cluster' },
} as const satisfies Record<string, FlagSpec>;

export type FlagName = keyof typeof FLAGS;

export interface BridgeFlags {
  readonly tableName: string;
  readonly rolloutTableName: string;
  readonly rolloutStateMachineArn: string;
  readonly policyBundle: string;
  readonly policyReloadSeconds: number;
  readonly bindAddress: string;
  readonly webhookPort: number;
  readonly webhookCertDir: string;
  readonly healthPort: number;
  readonly watchNamespace: string;
  readonly resyncSeconds: number;
  readonly leaderElect: boolean;
  readonly leaderElectionNamespace: string;
  readonly leaderElectionId: string;
  readonly leaseDurationSeconds: number;
  readonly kubeconfig: string;
}

export class FlagError extends Error {
  override readonly name = 'FlagError';
}

const REQUIRED: readonly FlagName[] = [
  'table-name',
  'policy-bundle',
  'rollout-table-name',
  'rollout-state-machine-arn',
];

function isFlagName(name: string): name is FlagName {
  return Object.hasOwn(FLAGS, name);
}

/** Raw `name -> value` pairs; throws FlagError on anything it does not know. */
export function scanArgs(argv: readonly string[]): Map<FlagName, string> {
  const out = new Map<FlagName, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const m = /^--([a-z][a-z0-9-]*)(?:=(.*))?$/s.exec(arg);
    if (!m) throw new FlagError(`unexpected argument ${JSON.stringify(arg)}: flags look like --name=value`);
    const name = m[1] as string;
    if (!isFlagName(name)) {
      throw new FlagError(
        `unknown flag --${name}; known flags: ${Object.keys(FLAGS)
          .map((f) => `--${f}`)
          .join(', ')}`,
      );
    }
    let value = m[2];
    if (value === undefined) {
      const next = argv[i + 1];
      if (FLAGS[name].kind === 'boolean' && (next === undefined || next.startsWith('--'))) value = 'true';
      else if (next === undefined) throw new FlagError(`flag --${name} needs a value`);
      else {
        value = next;
        i++;
      }
    }
    out.set(name, value);
  }
  return out;
}

function convert(name: FlagName, raw: string): string | number | boolean {
  const kind: Kind = FLAGS[name].kind;
  switch (kind) {
    case 'string':
      return raw;
    case 'boolean':
      if (raw === 'true' || raw === 'false') return raw === 'true';
      throw new FlagError(`--${name} must be true or false, got ${JSON.stringify(raw)}`);
    case 'port': {
      const n = Number(raw);
      if (Number.isInteger(n) && n >= 1 && n <= 65535) return n;
      throw new FlagError(`--${name} must be a port number (1-65535), got ${JSON.stringify(raw)}`);
    }
    case 'seconds': {
      const n = Number(raw);
      if (raw !== '' && Number.isFinite(n) && n > 0) return n;
      throw new FlagError(`--${name} must be a positive number of seconds, got ${JSON.stringify(raw)}`);
    }
  }
}

/** Parses and checks the whole command line. */
export function parseFlags(argv: readonly string[]): BridgeFlags {
  const given = scanArgs(argv);
  const missing = REQUIRED.filter((f) => !given.get(f));
  if (missing.length > 0)
    throw new FlagError(`missing required flags: ${missing.map((f) => `--${f}`).join(', ')}`);
  const get = (name: FlagName) => {
    const spec: FlagSpec = FLAGS[name];
    return convert(name, given.get(name) ?? spec.default ?? '');
  };
  return {
    tableName: get('table-name') as string,
    rolloutTableName: get('rollout-table-name') as string,
    rolloutStateMachineArn: get('rollout-state-machine-arn') as string,
    policyBundle: get('policy-bundle') as string,
    policyReloadSeconds: get('policy-reload-seconds') as number,
    bindAddress: get('bind-address') as string,
    webhookPort: get('webhook-port') as number,
    webhookCertDir: get('webhook-cert-dir') as string,
    healthPort: get('health-port') as number,
    watchNamespace: get('watch-namespace') as string,
    resyncSeconds: get('resync-seconds') as number,
    leaderElect: get('leader-elect') as boolean,
    leaderElectionNamespace: get('leader-election-namespace') as string,
    leaderElectionId: get('leader-election-id') as string,
    leaseDurationSeconds: get('lease-duration-seconds') as number,
    kubeconfig: get('kubeconfig') as string,
  };
}

export function usage(): string {
  const lines = Object.entries(FLAGS).map(([name, spec]) => {
    const s: FlagSpec = spec;
    const def = s.default !== undefined ? ` (default ${JSON.stringify(s.default)})` : ' (required)';
    return `  --${name}=<${s.kind}>  ${s.help}${def}`;
  });
  return ['usage: cloudorch-bridge [flags]', ...lines].join('\n');
}
