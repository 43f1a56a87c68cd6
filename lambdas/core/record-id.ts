/**
 * Record ids: `<namespace>/<name>`, both DNS labels, as `cloudorch apply` and the bridge write them.
 * One definition for the manifest loader, the store's record parser and the trigger checks.
 */
export const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
export const DNS_LABEL_MAX = 63;

export function isDnsLabel(s: unknown): s is string {
  return typeof s === 'string' && s.length <= DNS_LABEL_MAX && DNS_LABEL.test(s);
}

export function isRecordId(id: unknown): id is string {
  if (typeof id !== 'string') return false;
  const parts = id.split('/');
  return parts.length === 2 && parts.every(isDnsLabel);
}
