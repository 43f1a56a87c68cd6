/** Kubernetes minor versions as EKS reports them ("1.31": major.minor only). */
import { InternalError } from './errors.js';

export interface MinorVersion {
  readonly major: number;
  readonly minor: number;
}

const VERSION = /^(\d+)\.(\d+)$/;

export function parseVersion(v: string): MinorVersion {
  const m = VERSION.exec(v);
  if (!m) throw new InternalError(`not a major.minor Kubernetes version: ${JSON.stringify(v)}`);
  return { major: Number(m[1]), minor: Number(m[2]) };
}

export function formatVersion(v: MinorVersion): string {
  return `${v.major}.${v.minor}`;
}

/** Negative when a < b, zero when equal, positive when a > b. */
export function compareVersions(a: string, b: string): number {
  const x = parseVersion(a);
  const y = parseVersion(b);
  return x.major !== y.major ? x.major - y.major : x.minor - y.minor;
}

/** The next minor version: EKS moves the control plane one minor at a time. */
export function nextMinor(v: string): string {
  const p = parseVersion(v);
  return formatVersion({ major: p.major, minor: p.minor + 1 });
}
