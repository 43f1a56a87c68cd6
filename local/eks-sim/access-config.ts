/**
 * UpdateClusterConfig for the access config (the only member the simulator implements), and the
 * entries EKS creates itself for managed node group roles.
 */
import { AUTH_MODES, type AuthMode, accessOf, addEntry, bootstrapCreator } from './access-model.js';
import type { ClusterRec } from './model.js';
import { fingerprint, type Handler, param, tokenKey } from './request.js';
import { checkClusterActive, checkNoUpdateInProgress, invalidParameter } from './rules.js';
import type { SimState } from './state.js';
import { updateJson } from './wire.js';

/** How long an AccessConfigUpdate runs at speed 1; EKS documents no duration. */
export const ACCESS_CONFIG_UPDATE_MS = 60_000;

/**
 * The entry EKS makes for a managed node group's role (type EC2_LINUX) unless one exists or the cluster
 * authenticates through the ConfigMap only. CreateNodegroup must call this (ops-nodegroup.ts).
 */
export function addNodeRoleEntry(state: SimState, c: ClusterRec, nodeRole: string): void {
  const access = accessOf(state, c);
  if (access.mode === 'CONFIG_MAP' || access.entries.has(nodeRole)) return;
  addEntry(state, c, {
    principalArn: nodeRole,
    type: 'EC2_LINUX',
    kubernetesGroups: ['system:nodes'],
    tags: {},
  });
}

function targetMode(body: Readonly<Record<string, unknown>>): AuthMode {
  for (const k of Object.keys(body)) {
    if (k !== 'accessConfig' && k !== 'clientRequestToken') {
      throw invalidParameter(`The simulator does not implement ${k} in UpdateClusterConfig`); // [sim]
    }
  }
  const ac = body.accessConfig;
  const mode =
    typeof ac === 'object' && ac !== null ? (ac as Record<string, unknown>).authenticationMode : undefined;
  if (mode === undefined) throw invalidParameter('accessConfig.authenticationMode is required'); // [sim]
  if (!AUTH_MODES.includes(mode as AuthMode)) {
    throw invalidParameter(`authenticationMode must be one of ${AUTH_MODES.join(', ')}`); // [sim]
  }
  return mode as AuthMode;
}

/** The mode moves one way only: CONFIG_MAP -> API_AND_CONFIG_MAP -> API. */
function checkModeStep(from: AuthMode, to: AuthMode): void {
  if (AUTH_MODES.indexOf(to) <= AUTH_MODES.indexOf(from)) {
    throw invalidParameter(`Unsupported authentication mode update from ${from} to ${to}`); // [sim]
  }
}

export const updateClusterConfig: Handler = (r) => {
  const { state } = r;
  const c = state.cluster(r.region, param(r, 'name'), r.caller.account);
  const to = targetMode(r.body);
  return state.idempotent(tokenKey(r, 'UpdateClusterConfig', c.name), fingerprint(r), () => {
    checkNoUpdateInProgress(c, 'AccessConfigUpdate');
    checkClusterActive(c);
    const access = accessOf(state, c);
    checkModeStep(access.mode, to);
    const from = access.mode;
    const u = state.startUpdate(
      c,
      {
        // model.ts's UpdateRec lists the update types the lead's modules start; this one is EKS's too.
        type: 'AccessConfigUpdate',
        params: [{ type: 'AuthenticationMode', value: to }],
        effect: () => {
          access.mode = to;
          access.shown = true;
          // Leaving CONFIG_MAP, the creator and node group roles get the entries EKS would have made. [sim]
          if (from === 'CONFIG_MAP') {
            bootstrapCreator(state, c, access);
            for (const ng of c.nodegroups.values()) addNodeRoleEntry(state, c, ng.nodeRole);
          }
        },
      },
      ACCESS_CONFIG_UPDATE_MS,
    );
    return { update: updateJson(u) };
  });
};
