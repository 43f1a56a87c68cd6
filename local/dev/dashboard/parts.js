/**
 * A cluster's add-ons and access entries: what the spec asks (`spec.addons`, `spec.access`) beside
 * what the last run observed (`status.observed.addons`, `status.observed.access`). Every cell is a
 * field of the record /api/clusters returned.
 */
import { h } from './dom.js';

function subTable(part, caption, headers, rows) {
  return h(
    'table',
    { class: 'sub', 'data-part': part },
    h('caption', {}, caption),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        headers.map((t) => h('th', { scope: 'col' }, t)),
      ),
    ),
    h('tbody', {}, rows),
  );
}

/** ACTIVE is healthy; DEGRADED, CREATE_FAILED, UPDATE_FAILED and Missing are not; the rest are moving. */
function healthClass(status) {
  if (status === 'ACTIVE') return 'ok';
  return /DEGRADED|FAILED|Missing/.test(status) ? 'bad' : 'moving';
}

function addonRow(name, spec, seen) {
  const status = seen?.status ?? 'not observed';
  return h(
    'tr',
    { 'data-addon': name },
    h('td', {}, name),
    h('td', {}, spec?.version ?? 'not listed'),
    h('td', {}, seen?.version ?? '-'),
    h('td', { class: `state ${healthClass(status)}` }, status),
    h('td', {}, seen?.issues?.join(', ') || '-'),
  );
}

/** The listed add-ons in spec order, with the version each asks for and what EKS runs. */
export function addons(r) {
  const listed = r.spec.addons;
  const raw = r.status?.observed?.addons;
  // An item written to the table by hand may hold anything: it must not break the page.
  if (raw !== undefined && !Array.isArray(raw))
    return h('p', { class: 'empty' }, 'status.observed.addons is malformed in the table.');
  const observed = raw?.filter((a) => a && typeof a.name === 'string' && typeof a.status === 'string');
  if (listed === undefined && observed === undefined)
    return h('p', { class: 'empty' }, 'Not managed: the spec lists no addons.');
  const names = [...new Set([...(listed ?? []).map((a) => a.name), ...(observed ?? []).map((a) => a.name)])];
  if (names.length === 0)
    return h(
      'p',
      { class: 'empty' },
      'None listed: CloudOrch removes the add-ons it created (preserving their resources).',
    );
  const rows = names.map((name) =>
    addonRow(
      name,
      listed?.find((a) => a.name === name),
      observed?.find((a) => a.name === name),
    ),
  );
  const active = (observed ?? []).filter((a) => a.status === 'ACTIVE').length;
  const caption = observed ? `${active} of ${observed.length} add-on(s) ACTIVE` : 'Not observed yet';
  return subTable('addons', caption, ['ADD-ON', 'WANT', 'VERSION', 'STATUS', 'ISSUES'], rows);
}

function policyText(p) {
  return p.scope === 'namespace' ? `${p.name} (${(p.namespaces ?? []).join(', ')})` : `${p.name} (cluster)`;
}

function entryRow(e) {
  return h(
    'tr',
    { 'data-principal': e.principalArn },
    h('td', {}, e.principalArn),
    h('td', {}, e.type),
    h('td', {}, e.policies.join('; ') || '-'),
    h('td', {}, e.listed ? 'listed' : e.type === 'STANDARD' ? 'not listed' : "not listed (EKS's own)"),
  );
}

/** The authentication mode and the access entries EKS reports, or the spec's while none are read. */
export function access(r) {
  const spec = r.spec.access;
  const raw = r.status?.observed?.access;
  if (
    raw !== undefined &&
    (typeof raw !== 'object' ||
      raw === null ||
      (raw.entries !== undefined &&
        (!Array.isArray(raw.entries) ||
          raw.entries.some((e) => !e || typeof e.principalArn !== 'string' || !Array.isArray(e.policies)))))
  )
    return h('p', { class: 'empty' }, 'status.observed.access is malformed in the table.');
  const observed = raw;
  if (!spec && !observed) return h('p', { class: 'empty' }, 'Not managed: the spec has no access.');
  const mode = observed?.authenticationMode ?? 'not observed';
  const asks =
    spec?.authenticationMode && spec.authenticationMode !== mode
      ? ` (the spec asks for ${spec.authenticationMode})`
      : '';
  const caption = `Mode ${mode}${asks}${spec ? `, exclusive: ${spec.exclusive}` : ''}`;
  const entries = observed?.entries;
  if (entries)
    return subTable('access', caption, ['PRINCIPAL', 'TYPE', 'POLICIES', 'SPEC'], entries.map(entryRow));
  const wanted = (spec?.entries ?? []).map((e) =>
    entryRow({
      principalArn: e.principalArn,
      type: e.type,
      policies: e.policies.map(policyText),
      listed: true,
    }),
  );
  return subTable(
    'access',
    `${caption}; entries not observed yet, as the spec lists them`,
    ['PRINCIPAL', 'TYPE', 'POLICIES', 'SPEC'],
    wanted,
  );
}
