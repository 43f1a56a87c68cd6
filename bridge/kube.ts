/**
 * The CloudCluster API as the bridge uses it: list, watch, get, and two merge patches (metadata,
 * status). Every write carries the resourceVersion it was computed from, so a concurrent change is
 * a 409 to retry, never an overwrite. Errors are classified here and nowhere else.
 */
import {
  CustomObjectsApi,
  type KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  Watch,
} from '@kubernetes/client-node';
import { asKubeApiError, KubeApiError } from './api-errors.js';
import { GROUP, PLURAL, VERSION } from './constants.js';

export interface ObjectMeta {
  readonly name: string;
  readonly namespace: string;
  readonly uid: string;
  readonly generation: number;
  readonly resourceVersion: string;
  readonly finalizers?: readonly string[];
  /** Mirrored to the record's labels (`cloudorch get -l` selects on them). */
  readonly labels?: Readonly<Record<string, string>>;
  readonly deletionTimestamp?: string;
  readonly creationTimestamp?: string;
}

export interface CloudClusterObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: ObjectMeta;
  readonly spec?: unknown;
  readonly status?: Record<string, unknown>;
}

export interface ObjectList {
  readonly items: CloudClusterObject[];
  readonly resourceVersion: string;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export { KubeApiError };

export const isConflict = (err: unknown): boolean => err instanceof KubeApiError && err.code === 409;
export const isNotFound = (err: unknown): boolean => err instanceof KubeApiError && err.code === 404;
export const isGone = (err: unknown): boolean => err instanceof KubeApiError && err.code === 410;

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** Checks the fields the bridge reads; anything else on the object is passed through untouched. */
export function asCloudCluster(x: unknown): CloudClusterObject {
  const m = isObject(x) && isObject(x['metadata']) ? x['metadata'] : undefined;
  if (
    !m ||
    typeof m['name'] !== 'string' ||
    typeof m['namespace'] !== 'string' ||
    typeof m['uid'] !== 'string' ||
    typeof m['resourceVersion'] !== 'string'
  ) {
    throw new KubeApiError('decode', {
      code: 0,
      reason: 'Invalid',
      message: `not a namespaced object: ${JSON.stringify(x).slice(0, 200)}`,
    });
  }
  return x as unknown as CloudClusterObject;
}

async function call<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw asKubeApiError(what, err);
  }
}

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

export class CloudClusterApi {
  private readonly api: CustomObjectsApi;
  private readonly watcher: Watch;

  /**
   * `namespace` empty: every namespace. `plural` picks the kind (CloudRollouts use this same API:
   * the bridge reads and writes the same metadata and status on both).
   */
  constructor(
    kc: KubeConfig,
    readonly namespace: string,
    readonly plural: string = PLURAL,
  ) {
    this.api = kc.makeApiClient(CustomObjectsApi);
    this.watcher = new Watch(kc);
  }

  async list(): Promise<ObjectList> {
    const base = { group: GROUP, version: VERSION, plural: this.plural };
    const out: unknown = await call(`list ${this.plural}`, () =>
      this.namespace
        ? this.api.listNamespacedCustomObject({ ...base, namespace: this.namespace })
        : this.api.listClusterCustomObject(base),
    );
    const list = isObject(out) ? out : {};
    const items = Array.isArray(list['items']) ? list['items'].map(asCloudCluster) : [];
    const meta = isObject(list['metadata']) ? list['metadata'] : {};
    return { items, resourceVersion: String(meta['resourceVersion'] ?? '') };
  }

  /** Starts a watch from `resourceVersion`; `done` is called exactly once when it ends. */
  watch(
    resourceVersion: string,
    onEvent: (type: WatchEventType, object: unknown) => void,
    done: (err: unknown) => void,
    timeoutSeconds: number,
  ): Promise<AbortController> {
    const path = this.namespace
      ? `/apis/${GROUP}/${VERSION}/namespaces/${this.namespace}/${this.plural}`
      : `/apis/${GROUP}/${VERSION}/${this.plural}`;
    return this.watcher.watch(
      path,
      { resourceVersion, allowWatchBookmarks: true, timeoutSeconds },
      (type: string, object: unknown) => onEvent(type as WatchEventType, object),
      (err: unknown) => {
        const code = isObject(err) && typeof err['statusCode'] === 'number' ? err['statusCode'] : undefined;
        done(
          code !== undefined ? new KubeApiError('watch', { code, reason: '', message: `HTTP ${code}` }) : err,
        );
      },
    );
  }

  /** The object as the API server holds it now, or undefined once it is gone (a mirror's retry). */
  async current(obj: CloudClusterObject): Promise<CloudClusterObject | undefined> {
    try {
      return await this.get(obj.metadata.namespace, obj.metadata.name);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  async get(namespace: string, name: string): Promise<CloudClusterObject> {
    const out: unknown = await call(`get ${namespace}/${name}`, () =>
      this.api.getNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        plural: this.plural,
        namespace,
        name,
      }),
    );
    return asCloudCluster(out);
  }

  /** Sets the finalizer list, conditional on the resourceVersion it was computed from. */
  async setFinalizers(obj: CloudClusterObject, finalizers: readonly string[]): Promise<CloudClusterObject> {
    const { namespace, name, resourceVersion } = obj.metadata;
    const body = { metadata: { resourceVersion, finalizers } };
    const out: unknown = await call(`patch finalizers of ${namespace}/${name}`, () =>
      this.api.patchNamespacedCustomObject(
        { group: GROUP, version: VERSION, plural: this.plural, namespace, name, body },
        mergePatch,
      ),
    );
    return asCloudCluster(out);
  }

  /** Merge-patches `/status` (null removes a field), conditional on the resourceVersion. */
  async patchStatus(obj: CloudClusterObject, status: Record<string, unknown>): Promise<CloudClusterObject> {
    const { namespace, name, resourceVersion } = obj.metadata;
    const body = { metadata: { resourceVersion }, status };
    const out: unknown = await call(`patch status of ${namespace}/${name}`, () =>
      this.api.patchNamespacedCustomObjectStatus(
        { group: GROUP, version: VERSION, plural: this.plural, namespace, name, body },
        mergePatch,
      ),
    );
    return asCloudCluster(out);
  }
}
