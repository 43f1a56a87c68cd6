/**
 * The manifests and the binary are one deployable unit. Parsed from bridge/deploy, every path, port,
 * name and flag must match what the binary serves and reads; then the binary is started with the
 * Deployment's own arguments against the real API server and answers on the manifests' paths.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import {
  CRD_NAME,
  DEFAULT_CERT_DIR,
  DEPLOY,
  FINALIZER,
  GROUP,
  HEALTHZ_PATH,
  MIRROR_HEALTH_PATH,
  PLURAL,
  READYZ_PATH,
  ROLLOUT_CRD_NAME,
  ROLLOUT_PLURAL,
  ROLLOUT_WEBHOOK_PATH,
  WEBHOOK_PATH,
  WEBHOOK_PATHS,
} from '../../bridge/constants.js';
import { CRD_FILE, PRINTER_COLUMNS, renderCrd } from '../../bridge/crd.js';
import { FLAGS, FlagError, parseFlags, scanArgs } from '../../bridge/flags.js';
import { ROLLOUT_CRD_FILE, ROLLOUT_PRINTER_COLUMNS, renderRolloutCrd } from '../../bridge/rollout-crd.js';
import { freePort } from '../support/free-port.js';
import {
  BUNDLE_PATH,
  cloudCluster,
  cloudRollout,
  crPath,
  type Dynamo,
  installCrd,
  startDynamo,
  validRolloutSpec,
  validSpec,
  waitFor,
} from './support.js';
import { startTestEnv, type TestEnv } from './testenv.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DEPLOY_DIR = join(ROOT, 'bridge', 'deploy');

/** A parsed YAML document; read with {@link at}, which walks a dotted path and returns unknown. */
type Doc = Record<string, unknown>;

function at(x: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((cur, k) => {
    if (Array.isArray(cur)) return cur[Number(k)];
    return cur && typeof cur === 'object' ? (cur as Doc)[k] : undefined;
  }, x);
}
const list = (x: unknown, path: string): Doc[] => {
  const v = at(x, path);
  if (!Array.isArray(v)) throw new Error(`${path} is not a list`);
  return v as Doc[];
};
const text = (x: unknown, path: string): string => {
  const v = at(x, path);
  if (typeof v !== 'string') throw new Error(`${path} is not a string`);
  return v;
};

function manifests(): Doc[] {
  return readdirSync(DEPLOY_DIR)
    .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
    .flatMap((f) => parseAllDocuments(readFileSync(join(DEPLOY_DIR, f), 'utf8')).map((d) => d.toJS() as Doc));
}

function find(kind: string, name?: string): Doc {
  const doc = manifests().find(
    (d) => d['kind'] === kind && (name === undefined || at(d, 'metadata.name') === name),
  );
  if (!doc) throw new Error(`no ${kind} ${name ?? ''} in bridge/deploy`);
  return doc;
}

const deployment = () => find('Deployment', DEPLOY.name);
const container = (): Doc => list(deployment(), 'spec.template.spec.containers')[0] as Doc;
const deploymentArgs = (): string[] => list(container(), 'args').map(String);
const containerPort = (name: string): unknown =>
  list(container(), 'ports').find((p) => p['name'] === name)?.['containerPort'];

describe('manifests match the binary', () => {
  it('the committed CRD is exactly what the generator produces from the spec schema', () => {
    expect(readFileSync(CRD_FILE, 'utf8')).toBe(renderCrd());
    const crd = find('CustomResourceDefinition', CRD_NAME);
    const columns = list(crd, 'spec.versions.0.additionalPrinterColumns');
    expect(columns.map((c) => c['name'])).toEqual([
      'READY',
      'SYNCED',
      'VERSION',
      'NODES',
      'POOLS',
      'COST',
      'AGE',
    ]);
    expect(columns.find((c) => c['name'] === 'READY')?.['jsonPath']).toBe(
      '.status.conditions[?(@.type=="Ready")].status',
    );
    expect(columns.find((c) => c['name'] === 'SYNCED')?.['jsonPath']).toBe(
      '.status.conditions[?(@.type=="Synced")].status',
    );
    expect(columns).toEqual(PRINTER_COLUMNS);
  });

  it('the committed CloudRollout CRD is exactly what the generator produces from the rollout schema', () => {
    expect(readFileSync(ROLLOUT_CRD_FILE, 'utf8')).toBe(renderRolloutCrd());
    const crd = find('CustomResourceDefinition', ROLLOUT_CRD_NAME);
    expect(at(crd, 'spec.versions.0.subresources')).toEqual({ status: {} });
    const columns = list(crd, 'spec.versions.0.additionalPrinterColumns');
    expect(columns.map((c) => c['name'])).toEqual(['PHASE', 'STAGE', 'AGE']);
    expect(columns).toEqual(ROLLOUT_PRINTER_COLUMNS);
  });

  it('every Deployment argument is a flag the binary parses, with no placeholder left unparsed', () => {
    const args = deploymentArgs();
    const given = scanArgs(args);
    expect(given.size).toBe(args.length); // no repeats: each line in the manifest means one thing
    const flags = parseFlags(args);
    expect(flags.leaderElect).toBe(true);
    expect(flags.webhookPort).toBe(containerPort('webhook'));
    expect(flags.healthPort).toBe(containerPort('health'));
    expect(flags.webhookCertDir).toBe(DEFAULT_CERT_DIR);
    expect(flags.leaderElectionNamespace).toBe(DEPLOY.namespace);
    expect(flags.leaderElectionId).toBe(DEPLOY.leaseName);
    // Both placeholders name the stack outputs the docs tell people to copy.
    expect(flags.rolloutTableName).toBe('REPLACE-with-RolloutTableName');
    expect(flags.rolloutStateMachineArn).toBe('REPLACE-with-RolloutStateMachineArn');
  });

  it('unknown or malformed flags fail with a message naming them', () => {
    expect(() => parseFlags([...deploymentArgs(), '--webhook-prot=1'])).toThrow(
      /unknown flag --webhook-prot/,
    );
    expect(() => parseFlags([...deploymentArgs(), '--health-port=http'])).toThrow(FlagError);
    expect(() => parseFlags(['--table-name=t'])).toThrow(
      /missing required flags: --policy-bundle, --rollout-table-name, --rollout-state-machine-arn/,
    );
    expect(() => parseFlags([...deploymentArgs(), 'positional'])).toThrow(/unexpected argument/);
    expect(Object.keys(FLAGS)).toContain('leader-elect');
  });

  it('probes, Service, webhook configuration, certificate and RBAC point at what the binary serves', () => {
    const c = container();
    expect(at(c, 'livenessProbe.httpGet')).toEqual({ path: HEALTHZ_PATH, port: 'health' });
    expect(at(c, 'readinessProbe.httpGet')).toEqual({ path: READYZ_PATH, port: 'health' });
    const mount = list(c, 'volumeMounts').find(
      (m) => m['mountPath'] === parseFlags(deploymentArgs()).webhookCertDir,
    );
    const volume = list(deployment(), 'spec.template.spec.volumes').find(
      (v) => v['name'] === mount?.['name'],
    );
    const cert = find('Certificate');
    expect(at(volume, 'secret.secretName')).toBe(text(cert, 'spec.secretName'));

    const svc = find('Service', DEPLOY.webhookService);
    expect(at(svc, 'spec.ports.0.targetPort')).toBe('webhook');
    expect(at(svc, 'spec.selector')).toEqual(at(deployment(), 'spec.selector.matchLabels'));
    const vwc = find('ValidatingWebhookConfiguration');
    const hook = list(vwc, 'webhooks')[0];
    expect(at(hook, 'name')).toBe(DEPLOY.webhookName);
    expect(at(hook, 'clientConfig.service')).toEqual({
      name: DEPLOY.webhookService,
      namespace: DEPLOY.namespace,
      path: WEBHOOK_PATH,
      port: at(svc, 'spec.ports.0.port'),
    });
    expect(at(hook, 'rules.0')).toMatchObject({
      apiGroups: [GROUP],
      resources: [PLURAL],
      operations: ['CREATE', 'UPDATE'],
    });
    expect(at(vwc, 'metadata.annotations')).toMatchObject({
      'cert-manager.io/inject-ca-from': `${DEPLOY.namespace}/${text(cert, 'metadata.name')}`,
    });
    expect(at(cert, 'spec.dnsNames')).toContain(`${DEPLOY.webhookService}.${DEPLOY.namespace}.svc`);
    const rolloutHook = list(vwc, 'webhooks')[1];
    expect(at(rolloutHook, 'name')).toBe(DEPLOY.rolloutWebhookName);
    expect(at(rolloutHook, 'clientConfig.service')).toEqual({
      ...(at(hook, 'clientConfig.service') as Doc),
      path: ROLLOUT_WEBHOOK_PATH,
    });
    expect(at(rolloutHook, 'rules.0')).toMatchObject({
      apiGroups: [GROUP],
      resources: [ROLLOUT_PLURAL],
      operations: ['CREATE', 'UPDATE'],
    });
    expect(at(rolloutHook, 'failurePolicy')).toBe('Fail');
    // Every path a webhook configuration names is one the server serves (and the binary test calls each).
    for (const w of list(vwc, 'webhooks'))
      expect(WEBHOOK_PATHS).toContain(text(w, 'clientConfig.service.path'));

    const leaseRule = list(find('Role'), 'rules').find((r) => r['resourceNames']);
    expect(leaseRule?.['resourceNames']).toEqual([parseFlags(deploymentArgs()).leaderElectionId]);
    const sa = find('ServiceAccount', text(deployment(), 'spec.template.spec.serviceAccountName'));
    expect(at(sa, 'metadata.annotations')).toMatchObject({
      'eks.amazonaws.com/role-arn': expect.stringMatching(/^arn:aws:iam::\d{12}:role\//),
    });
    expect(at(find('PodDisruptionBudget'), 'spec.selector')).toEqual(at(deployment(), 'spec.selector'));
    expect(FINALIZER.startsWith(GROUP)).toBe(true);
  });

  it('the pod runs non-root, read-only, without privilege escalation, under RuntimeDefault seccomp', () => {
    expect(at(deployment(), 'spec.template.spec.securityContext')).toMatchObject({
      runAsNonRoot: true,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(container()['securityContext']).toMatchObject({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
  });

  it('kustomization lists every manifest in the folder', () => {
    const k: unknown = parseAllDocuments(
      readFileSync(join(DEPLOY_DIR, 'kustomization.yaml'), 'utf8'),
    )[0]?.toJS();
    const files = readdirSync(DEPLOY_DIR).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml');
    expect(list(k, 'resources').map(String).sort()).toEqual(files.sort());
  });
});

/** `kubectl kustomize` of an overlay: bridge/deploy plus the given components (paths relative to it). */
function render(components: string[]): Doc[] {
  const dir = mkdtempSync(join(tmpdir(), 'cloudorch-overlay-'));
  try {
    const rel = (p: string) => relative(dir, join(DEPLOY_DIR, p));
    writeFileSync(
      join(dir, 'kustomization.yaml'),
      stringify({
        apiVersion: 'kustomize.config.k8s.io/v1beta1',
        kind: 'Kustomization',
        resources: [rel('.')],
        components: components.map(rel),
      }),
    );
    const out = execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8' });
    return parseAllDocuments(out).map((d) => d.toJS() as Doc);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const hasKubectl = spawnSync('kubectl', ['version', '--client'], { stdio: 'ignore' }).status === 0;
const podLabels = () => at(deployment(), 'spec.template.metadata.labels');

describe('network policy, spread and the namespaced variant', () => {
  it('the NetworkPolicy selects the bridge pods and lets in the webhook port and the probes port', () => {
    const np = find('NetworkPolicy', DEPLOY.name);
    expect(at(np, 'spec.podSelector.matchLabels')).toEqual(podLabels());
    expect(at(np, 'spec.policyTypes')).toEqual(['Ingress', 'Egress']);
    // A named port resolves against the container's ports, as the CNI does.
    const resolve = (port: unknown) => (typeof port === 'string' ? containerPort(port) : port);
    const open = list(np, 'spec.ingress').flatMap((rule) => {
      // No `from`: any source. The API server is not a pod, so no selector could name it.
      expect(rule['from']).toBeUndefined();
      return list(rule, 'ports').map((p) => resolve(p['port']));
    });
    const probePorts = ['livenessProbe', 'readinessProbe'].map((p) =>
      resolve(at(container(), `${p}.httpGet.port`)),
    );
    const flags = parseFlags(deploymentArgs());
    expect(new Set(open)).toEqual(new Set([flags.webhookPort, ...probePorts]));
    const egress = list(np, 'spec.egress').flatMap((rule) =>
      list(rule, 'ports').map((p) => `${p['protocol']}/${p['port']}`),
    );
    expect(egress).toEqual(expect.arrayContaining(['TCP/443', 'UDP/53', 'TCP/53', 'TCP/80']));
    const podIdentity = list(np, 'spec.egress').find((r) => at(r, 'ports.0.port') === 80);
    expect(at(podIdentity, 'to')).toEqual([{ ipBlock: { cidr: '169.254.170.23/32' } }]);
  });

  it('replicas spread across nodes (hard) and zones (soft), matching the pod labels', () => {
    const spread = list(deployment(), 'spec.template.spec.topologySpreadConstraints');
    expect(spread.map((c) => [c['topologyKey'], c['whenUnsatisfiable']])).toEqual([
      ['kubernetes.io/hostname', 'DoNotSchedule'],
      ['topology.kubernetes.io/zone', 'ScheduleAnyway'],
    ]);
    for (const c of spread) expect(at(c, 'labelSelector.matchLabels')).toEqual(podLabels());
  });

  it('readiness is the webhook alone; no probe reads the mirror health', () => {
    expect(at(container(), 'readinessProbe.httpGet.path')).toBe(READYZ_PATH);
    const probes = ['livenessProbe', 'readinessProbe', 'startupProbe'].map((p) =>
      at(container(), `${p}.httpGet.path`),
    );
    expect(probes).not.toContain(MIRROR_HEALTH_PATH);
  });

  it('the Pod environment the binary reads comes from the downward API, with Events allowed in its namespace', () => {
    const env = list(container(), 'env');
    for (const [name, field] of [
      ['POD_NAME', 'metadata.name'],
      ['POD_NAMESPACE', 'metadata.namespace'],
      ['POD_UID', 'metadata.uid'],
    ])
      expect(env.find((e) => e['name'] === name)?.['valueFrom']).toEqual({ fieldRef: { fieldPath: field } });
    const own = find('Role', 'cloudorch-bridge-leader-election');
    expect(at(own, 'metadata.namespace')).toBe(DEPLOY.namespace);
    expect(list(own, 'rules')).toContainEqual({
      apiGroups: ['events.k8s.io'],
      resources: ['events'],
      verbs: ['create', 'patch'],
    });
  });

  it('the base grants Events (events.k8s.io) with the CloudCluster permissions', () => {
    const rules = list(find('ClusterRole', DEPLOY.name), 'rules');
    expect(rules).toContainEqual({
      apiGroups: ['events.k8s.io'],
      resources: ['events'],
      verbs: ['create', 'patch'],
    });
  });

  it('the base grants watching CloudRollouts and patching their status, and nothing that deletes', () => {
    const rules = list(find('ClusterRole', DEPLOY.name), 'rules');
    expect(rules).toContainEqual({
      apiGroups: [GROUP],
      resources: [ROLLOUT_PLURAL],
      verbs: ['get', 'list', 'watch'],
    });
    expect(rules).toContainEqual({
      apiGroups: [GROUP],
      resources: [`${ROLLOUT_PLURAL}/status`],
      verbs: ['get', 'patch'],
    });
    for (const r of rules) expect(r['verbs']).not.toContain('delete');
  });

  it.skipIf(!hasKubectl)(
    'the namespaced variant (kubectl kustomize) sets --watch-namespace and grants nothing cluster-wide',
    () => {
      const docs = render(['components/namespaced', 'components/webhook-from-cidr']);
      const kinds = docs.map((d) => d['kind']);
      expect(kinds).not.toContain('ClusterRole');
      expect(kinds).not.toContain('ClusterRoleBinding');
      const dep = docs.find((d) => d['kind'] === 'Deployment');
      const flags = parseFlags(list(dep, 'spec.template.spec.containers.0.args').map(String));
      expect(flags.watchNamespace).toBe('REPLACE-with-watched-namespace');
      const roles = docs.filter(
        (d) => d['kind'] === 'Role' && at(d, 'metadata.namespace') === flags.watchNamespace,
      );
      expect(roles).toHaveLength(1);
      // The same grants the ClusterRole gives, in that namespace only.
      expect(list(roles[0], 'rules')).toEqual(list(find('ClusterRole', DEPLOY.name), 'rules'));
      const binding = docs.find(
        (d) => d['kind'] === 'RoleBinding' && at(d, 'metadata.namespace') === flags.watchNamespace,
      );
      expect(at(binding, 'roleRef')).toEqual({
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'Role',
        name: text(roles[0], 'metadata.name'),
      });
      expect(at(binding, 'subjects.0')).toEqual({
        kind: 'ServiceAccount',
        name: DEPLOY.name,
        namespace: DEPLOY.namespace,
      });
      const vwc = docs.find((d) => d['kind'] === 'ValidatingWebhookConfiguration');
      for (const w of list(vwc, 'webhooks'))
        expect(w['namespaceSelector']).toEqual({
          matchLabels: { 'kubernetes.io/metadata.name': flags.watchNamespace },
        });
      const np = docs.find((d) => d['kind'] === 'NetworkPolicy');
      expect(at(np, 'spec.ingress.0.from')).toEqual([{ ipBlock: { cidr: 'REPLACE-with-API-server-CIDR' } }]);
    },
  );
});

/** POSTs an AdmissionReview over TLS, as the API server does, and parses the answer. */
function postReview(port: number, path: string, body: unknown): Promise<unknown> {
  return new Promise((res, rej) => {
    const r = request(
      { host: '127.0.0.1', port, path, method: 'POST', ca: readFileSync(caFile), servername: 'localhost' },
      (resp) => {
        let out = '';
        resp.on('data', (c: Buffer) => {
          out += c.toString();
        });
        resp.on('end', () => res(JSON.parse(out)));
      },
    );
    r.on('error', rej);
    r.end(JSON.stringify(body));
  });
}
let caFile = '';

describe('the binary started with the Deployment arguments', () => {
  let env: TestEnv;
  let dynamo: Dynamo;
  let child: ChildProcess | undefined;
  let output = '';

  beforeAll(async () => {
    env = await startTestEnv();
    caFile = env.pki.caCert;
    // The Deployment's --table-name and --rollout-table-name, as they stand in the manifest.
    const flags = parseFlags(deploymentArgs());
    dynamo = await startDynamo(flags.tableName, flags.rolloutTableName);
    await installCrd(env);
  }, 600_000);

  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await dynamo?.stop();
    await env?.stop();
  });

  const spawnBridge = (args: string[]) => {
    output = '';
    const proc = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bridge', 'main.ts'), ...args], {
      cwd: ROOT,
      env: {
        ...process.env,
        KUBECONFIG: env.kubeconfigFile(),
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local',
        AWS_ENDPOINT_URL_DYNAMODB: dynamo.bridgeEndpoint,
      },
    });
    proc.stdout?.on('data', (b: Buffer) => {
      output += b.toString();
    });
    proc.stderr?.on('data', (b: Buffer) => {
      output += b.toString();
    });
    return proc;
  };
  const exited = (proc: ChildProcess) =>
    new Promise<number | null>((res) =>
      proc.exitCode !== null ? res(proc.exitCode) : proc.once('exit', (code) => res(code)),
    );

  it('refuses to start on an unknown flag, naming it', async () => {
    const proc = spawnBridge([...deploymentArgs(), '--metrics-bind-address=:8080']);
    expect(await exited(proc)).toBe(2);
    expect(output).toContain('unknown flag --metrics-bind-address');
  });

  it('serves readiness and admission on the manifests’ paths, and mirrors a CR', async () => {
    const [webhookPort, healthPort] = [await freePort(), await freePort()];
    // Appended, last one wins: tests bind loopback on free ports, load the bundle from a file, and
    // this API server has no Leases. Everything else is the Deployment's argument list as written.
    const overlay = [
      '--bind-address=127.0.0.1',
      `--webhook-port=${webhookPort}`,
      `--health-port=${healthPort}`,
      `--webhook-cert-dir=${env.pki.webhookCertDir}`,
      `--policy-bundle=${BUNDLE_PATH}`,
      '--leader-elect=false',
    ];
    child = spawnBridge([...deploymentArgs(), ...overlay]);
    const probe = text(container(), 'readinessProbe.httpGet.path');
    const ready = await waitFor('readiness', async () => {
      const r = await fetch(`http://127.0.0.1:${healthPort}${probe}`);
      return r.status === 200 ? r.text() : undefined;
    });
    expect(ready).toContain('[+] policy ok');
    // The mirror's health, which no probe reads, on the path the docs name.
    const mirror = await waitFor('mirror health', async () => {
      const r = await fetch(`http://127.0.0.1:${healthPort}${MIRROR_HEALTH_PATH}`);
      return r.status === 200 ? r.text() : undefined;
    });
    for (const check of ['watch', 'dynamodb', 'rollout-watch', 'rollout-table', 'leader'])
      expect(mirror).toContain(`[+] ${check} ok`);
    const live = await fetch(
      `http://127.0.0.1:${healthPort}${text(container(), 'livenessProbe.httpGet.path')}`,
    );
    expect(live.status).toBe(200);

    // Every path the webhook configuration names answers, for its kind, naming the refused field.
    const malformed: Record<string, { object: unknown; field: string }> = {
      [WEBHOOK_PATH]: {
        object: cloudCluster('ns1', 'x', validSpec({ region: 'xx-east-1' })),
        field: 'spec.region',
      },
      [ROLLOUT_WEBHOOK_PATH]: {
        object: cloudRollout('ns1', 'x', validRolloutSpec({ stages: [{ name: 'Canary' }] })),
        field: 'spec.stages[0].name',
      },
    };
    const hooks = list(find('ValidatingWebhookConfiguration'), 'webhooks');
    expect(hooks.map((w) => text(w, 'clientConfig.service.path')).sort()).toEqual(
      Object.keys(malformed).sort(),
    );
    for (const hook of hooks) {
      const path = text(hook, 'clientConfig.service.path');
      const review = await postReview(webhookPort, path, {
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        request: { uid: 'u1', operation: 'CREATE', object: malformed[path]?.object },
      });
      expect(review, path).toMatchObject({ response: { uid: 'u1', allowed: false } });
      expect(JSON.stringify(review), path).toContain(malformed[path]?.field);
    }

    const created = await env.request('POST', crPath('ns1'), {
      body: cloudCluster('ns1', 'spawned', validSpec()),
    });
    expect(created.status).toBe(201);
    await waitFor('record from the spawned binary', () => dynamo.store.get('ns1/spawned'));

    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
  }, 120_000);
});
