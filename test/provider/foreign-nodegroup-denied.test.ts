/**
 * AccessDenied on deleting a node group CloudOrch did not create: IAM allows it only when the stack
 * sets `deleteForeignNodegroups`, so the remediation says that (or to delete it by hand), not the
 * generic "grant the permission". Any other denial keeps the generic hint.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PermanentError } from '../../lambdas/core/errors.js';
import type { DeleteNodegroup } from '../../lambdas/core/plan/types.js';
import type { EksProvider } from '../../lambdas/provider/eks-provider.js';
import { ref } from './support/fixtures.js';
import { eksError, type ScriptedServer, startScriptedServer } from './support/scripted-server.js';
import { providerFor } from './support/servers.js';

const deletion = (reason: DeleteNodegroup['reason']): DeleteNodegroup => ({
  kind: 'DeleteNodegroup',
  ...ref,
  nodegroupName: 'team-gpu',
  reason,
});

async function denied(p: EksProvider, op: DeleteNodegroup): Promise<PermanentError> {
  const e = await p.apply(op).catch((err: unknown) => err);
  expect(e).toBeInstanceOf(PermanentError);
  return e as PermanentError;
}

describe('AccessDenied deleting a node group', () => {
  let server: ScriptedServer;
  let provider: EksProvider;
  beforeAll(async () => {
    server = await startScriptedServer(eksError(403, 'AccessDeniedException'));
    provider = providerFor(server.url);
  });
  afterAll(async () => {
    await server.close();
  });

  it('of a foreign group names the stack prop, the policy setting, and deleting it by hand', async () => {
    const e = await denied(provider, deletion('foreign'));
    expect(e.code).toBe('AccessDeniedException');
    expect(e.remediation).toMatch(/^CloudOrch did not create node group team-gpu/);
    expect(e.remediation).toContain('deleteForeignNodegroups');
    expect(e.remediation).toContain('foreignNodegroups.allowDeletion');
    expect(e.remediation).toContain(
      `aws eks delete-nodegroup --cluster-name ${ref.clusterName} --nodegroup-name team-gpu`,
    );
  });

  it("while deleting the cluster says the same, for the case the group is not CloudOrch's", async () => {
    const e = await denied(provider, deletion('cluster-deletion'));
    expect(e.remediation).toMatch(/^The cluster's deletion deletes node group team-gpu first/);
    expect(e.remediation).toContain('deleteForeignNodegroups');
  });

  it("of CloudOrch's own group keeps the generic IAM hint", async () => {
    const e = await denied(provider, deletion('pool-removed'));
    expect(e.code).toBe('AccessDeniedException');
    expect(e.remediation).not.toContain('deleteForeignNodegroups');
  });

  it('of a foreign group, any other error is left as classified', async () => {
    server.answer = eksError(400, 'InvalidParameterException');
    const e = await denied(provider, deletion('foreign'));
    expect(e.code).toBe('InvalidParameterException');
    expect(e.remediation).not.toContain('deleteForeignNodegroups');
  });
});
