/**
 * A real Kubernetes API server for the bridge suite: k8s.io/apiextensions-apiserver (the CRD server
 * kube-apiserver embeds) on etcd, both built from the Go module proxy by tools/k8s-testenv, bound to
 * 127.0.0.1 on free ports, with a throwaway CA and a `system:masters` client certificate. It serves
 * CRDs, status subresources, watch, finalizers and 409 conflicts with kube-apiserver's own registry
 * code; it has no core/v1, no coordination.k8s.io and, by default, no admission webhooks. Given a
 * {@link CoreStub} (the Namespaces and ValidatingWebhookConfigurations its admission plugins read),
 * it runs with NamespaceLifecycle and ValidatingAdmissionWebhook enabled.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { request } from 'node:https';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { freePort } from '../support/free-port.js';
import type { CoreStub } from './core-stub.js';

export const K8S_VERSION = 'v0.34.10';
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export function testenvBinDir(env: NodeJS.ProcessEnv = process.env): string {
  const cache = env.CLOUDORCH_CACHE ?? join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'cloudorch');
  return join(cache, `k8s-testenv-${K8S_VERSION}`, 'bin');
}

/** Builds the binaries when missing (minutes, first run only); a failed build fails the suite. */
export function ensureBinaries(): { etcd: string; apiserver: string } {
  const dir = testenvBinDir();
  const etcd = join(dir, 'etcd');
  const apiserver = join(dir, 'apiextensions-apiserver');
  if (!existsSync(etcd) || !existsSync(apiserver)) {
    execFileSync(join(ROOT, 'tools', 'k8s-testenv', 'build.sh'), [dir], { stdio: 'inherit' });
  }
  return { etcd, apiserver };
}

export interface Pki {
  readonly dir: string;
  readonly caCert: string;
  readonly adminCert: string;
  readonly adminKey: string;
  /** Serving certificate for 127.0.0.1 and localhost (API server and webhook). */
  readonly servingCert: string;
  readonly servingKey: string;
  /** The serving pair as the webhook reads it from a mounted secret: tls.crt and tls.key. */
  readonly webhookCertDir: string;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: 'pipe' });
}

export function makePki(dir: string): Pki {
  openssl(
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=cloudorch-test-ca',
      '-keyout',
      'ca.key',
      '-out',
      'ca.crt',
    ],
    dir,
  );
  const issue = (name: string, subj: string, ext: string) => {
    openssl(
      [
        'req',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-subj',
        subj,
        '-keyout',
        `${name}.key`,
        '-out',
        `${name}.csr`,
      ],
      dir,
    );
    writeFileSync(join(dir, `${name}.ext`), ext);
    openssl(
      [
        'x509',
        '-req',
        '-in',
        `${name}.csr`,
        '-CA',
        'ca.crt',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-days',
        '2',
        '-extfile',
        `${name}.ext`,
        '-out',
        `${name}.crt`,
      ],
      dir,
    );
  };
  issue('admin', '/O=system:masters/CN=cloudorch-admin', 'extendedKeyUsage=clientAuth\n');
  issue(
    'serving',
    '/CN=localhost',
    'extendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n',
  );
  const webhookCertDir = join(dir, 'webhook');
  mkdirSync(webhookCertDir);
  copyFileSync(join(dir, 'serving.crt'), join(webhookCertDir, 'tls.crt'));
  copyFileSync(join(dir, 'serving.key'), join(webhookCertDir, 'tls.key'));
  return {
    dir,
    webhookCertDir,
    caCert: join(dir, 'ca.crt'),
    adminCert: join(dir, 'admin.crt'),
    adminKey: join(dir, 'admin.key'),
    servingCert: join(dir, 'serving.crt'),
    servingKey: join(dir, 'serving.key'),
  };
}

export interface TestEnv {
  readonly server: string;
  readonly pki: Pki;
  readonly dir: string;
  kubeConfig(): KubeConfig;
  /** Writes a kubeconfig file (for a child process) and returns its path. */
  kubeconfigFile(): string;
  /** GET/POST with the admin certificate; resolves with status and body text. */
  request(
    method: string,
    path: string,
    opts?: { body?: unknown; accept?: string; contentType?: string },
  ): Promise<{ status: number; body: string }>;
  stopApiServer(): Promise<void>;
  startApiServer(): Promise<void>;
  stop(): Promise<void>;
}

function waitExit(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((res) => child.once('exit', () => res()));
}

export async function startTestEnv(opts: { core?: CoreStub; pki?: Pki } = {}): Promise<TestEnv> {
  const bins = ensureBinaries();
  const dir = mkdtempSync(join(tmpdir(), 'cloudorch-k8s-'));
  // A caller that needs the CA before the server starts (a webhook's caBundle) makes the PKI itself.
  const pki = opts.pki ?? makePki(dir);
  const [etcdClient, etcdPeer, apiPort] = [await freePort(), await freePort(), await freePort()];
  const logs: string[] = [];
  const capture = (name: string, child: ChildProcess) => {
    const keep = (b: Buffer) => {
      logs.push(`[${name}] ${b.toString()}`);
      if (logs.length > 400) logs.splice(0, logs.length - 400);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
  };
  const etcdUrl = `http://127.0.0.1:${etcdClient}`;
  const etcd = spawn(bins.etcd, [
    '--data-dir',
    join(dir, 'etcd'),
    '--listen-client-urls',
    etcdUrl,
    '--advertise-client-urls',
    etcdUrl,
    '--listen-peer-urls',
    `http://127.0.0.1:${etcdPeer}`,
    '--initial-advertise-peer-urls',
    `http://127.0.0.1:${etcdPeer}`,
    '--initial-cluster',
    `default=http://127.0.0.1:${etcdPeer}`,
    '--log-level',
    'warn',
  ]);
  capture('etcd', etcd);
  // Never used: authn/authz and the core informers need a kubeconfig to start (upstream does the same).
  const fake = join(dir, 'fake.kubeconfig');
  writeFileSync(
    fake,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters: [{name: none, cluster: {server: "http://127.0.0.1:1"}}]',
      'contexts: [{name: none, context: {cluster: none, user: none}}]',
      'users: [{name: none, user: {}}]',
      'current-context: none',
      '',
    ].join('\n'),
  );
  // With a core stub, the admission plugins' informers read it; otherwise those plugins are off.
  const coreKubeconfig = join(dir, 'core.kubeconfig');
  if (opts.core) writeFileSync(coreKubeconfig, opts.core.kubeconfig());
  const disabledPlugins = opts.core
    ? 'MutatingAdmissionPolicy,MutatingAdmissionWebhook,ValidatingAdmissionPolicy'
    : 'NamespaceLifecycle,MutatingAdmissionPolicy,MutatingAdmissionWebhook,ValidatingAdmissionPolicy,ValidatingAdmissionWebhook';
  const server = `https://127.0.0.1:${apiPort}`;
  let apiserver: ChildProcess | undefined;

  const req: TestEnv['request'] = (method, path, opts = {}) =>
    new Promise((res, rej) => {
      const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
      const r = request(
        `${server}${path}`,
        {
          method,
          ca: readFileSync(pki.caCert),
          cert: readFileSync(pki.adminCert),
          key: readFileSync(pki.adminKey),
          headers: {
            accept: opts.accept ?? 'application/json',
            ...(body ? { 'content-type': opts.contentType ?? 'application/json' } : {}),
          },
        },
        (resp) => {
          const chunks: Buffer[] = [];
          resp.on('data', (c: Buffer) => chunks.push(c));
          resp.on('end', () => res({ status: resp.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        },
      );
      r.on('error', rej);
      r.end(body);
    });

  const startApiServer = async () => {
    apiserver = spawn(bins.apiserver, [
      `--etcd-servers=${etcdUrl}`,
      '--etcd-prefix=/cloudorch-test',
      '--bind-address=127.0.0.1',
      `--secure-port=${apiPort}`,
      `--cert-dir=${join(dir, 'serving')}`,
      `--tls-cert-file=${pki.servingCert}`,
      `--tls-private-key-file=${pki.servingKey}`,
      `--client-ca-file=${pki.caCert}`,
      '--authentication-skip-lookup',
      `--authentication-kubeconfig=${fake}`,
      `--authorization-kubeconfig=${fake}`,
      `--kubeconfig=${opts.core ? coreKubeconfig : fake}`,
      '--enable-priority-and-fairness=false',
      `--disable-admission-plugins=${disabledPlugins}`,
    ]);
    capture('apiserver', apiserver);
    const child = apiserver;
    // /healthz, not /readyz: the core informers of the fake kubeconfig never sync.
    for (let i = 0; ; i++) {
      if (child.exitCode !== null)
        throw new Error(`apiextensions-apiserver exited (${child.exitCode}):\n${logs.join('')}`);
      const ok = await req('GET', '/healthz').then(
        (r) => r.status === 200 && r.body === 'ok',
        () => false,
      );
      if (ok) return;
      if (i > 600) throw new Error(`apiextensions-apiserver not healthy after 60 s:\n${logs.join('')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const stopApiServer = async () => {
    if (!apiserver) return;
    const child = apiserver;
    apiserver = undefined;
    // A crash, not a graceful drain: open watches would hold a graceful shutdown for a minute.
    child.kill('SIGKILL');
    await waitExit(child);
  };

  // If the test process ends without stop() (a killed run), take the servers with it.
  const reap = () => {
    apiserver?.kill('SIGKILL');
    etcd.kill('SIGKILL');
  };
  process.once('exit', reap);

  try {
    await startApiServer();
  } catch (err) {
    process.off('exit', reap);
    etcd.kill('SIGTERM');
    await waitExit(etcd);
    throw err;
  }

  const kubeConfig = () => {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'test', server, caFile: pki.caCert, skipTLSVerify: false }],
      users: [{ name: 'admin', certFile: pki.adminCert, keyFile: pki.adminKey }],
      contexts: [{ name: 'test', cluster: 'test', user: 'admin' }],
      currentContext: 'test',
    });
    return kc;
  };

  return {
    server,
    pki,
    dir,
    kubeConfig,
    kubeconfigFile: () => {
      const path = join(dir, 'admin.kubeconfig');
      writeFileSync(path, kubeConfig().exportConfig());
      return path;
    },
    request: req,
    stopApiServer,
    startApiServer,
    stop: async () => {
      process.off('exit', reap);
      await stopApiServer();
      etcd.kill('SIGTERM');
      await waitExit(etcd);
      rmSync(dir, { recursive: true, force: true });
      if (opts.pki) rmSync(opts.pki.dir, { recursive: true, force: true });
    },
  };
}
