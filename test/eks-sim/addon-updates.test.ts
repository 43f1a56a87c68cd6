/** UpdateAddon's AddonUpdate through the SDK: EKS scopes DescribeUpdate and ListUpdates by `addonName`. */
import {
  CreateAddonCommand,
  DescribeUpdateCommand,
  ListUpdatesCommand,
  UpdateAddonCommand,
} from '@aws-sdk/client-eks';
import { describe, expect, it } from 'vitest';
import { ADDON_DURATIONS } from '../../local/eks-sim/addon-state.js';
import { activeCluster, expectEksError, useSimulator } from './support.js';

const h = useSimulator();

async function addonUpdate(): Promise<string> {
  await activeCluster(h);
  await h.eks.send(new CreateAddonCommand({ clusterName: 'c', addonName: 'kube-proxy' }));
  await h.admin.advance(ADDON_DURATIONS.create);
  const { update } = await h.eks.send(
    new UpdateAddonCommand({ clusterName: 'c', addonName: 'kube-proxy', resolveConflicts: 'OVERWRITE' }),
  );
  expect(update).toMatchObject({ type: 'AddonUpdate', status: 'InProgress' });
  return update?.id as string;
}

describe('DescribeUpdate and ListUpdates with addonName', () => {
  it("find and list an add-on's update only under its addonName", async () => {
    const id = await addonUpdate();
    const scoped = { name: 'c', addonName: 'kube-proxy' };
    expect((await h.eks.send(new ListUpdatesCommand(scoped))).updateIds).toEqual([id]);
    expect((await h.eks.send(new DescribeUpdateCommand({ ...scoped, updateId: id }))).update).toMatchObject({
      id,
      type: 'AddonUpdate',
      status: 'InProgress',
      params: [{ type: 'ResolveConflicts', value: 'OVERWRITE' }],
      errors: [],
    });
    await h.admin.advance(ADDON_DURATIONS.update);
    expect((await h.eks.send(new DescribeUpdateCommand({ ...scoped, updateId: id }))).update?.status).toBe(
      'Successful',
    );
    // Without addonName the cluster's own updates are meant: the add-on's is neither listed nor found.
    expect((await h.eks.send(new ListUpdatesCommand({ name: 'c' }))).updateIds).toEqual([]);
    await expectEksError(
      h.eks.send(new DescribeUpdateCommand({ name: 'c', updateId: id })),
      404,
      'ResourceNotFoundException',
      `No update found for ID: ${id}`,
    );
    // Another add-on's scope does not see it either; an add-on that is not installed is not found.
    await expectEksError(
      h.eks.send(new ListUpdatesCommand({ name: 'c', addonName: 'coredns' })),
      404,
      'ResourceNotFoundException',
      'No addon: coredns found in cluster: c',
    );
  });

  it('refuses nodegroupName and addonName together', async () => {
    const id = await addonUpdate();
    await expectEksError(
      h.eks.send(
        new DescribeUpdateCommand({ name: 'c', updateId: id, addonName: 'kube-proxy', nodegroupName: 'ng' }),
      ),
      400,
      'InvalidParameterException',
    );
  });
});
