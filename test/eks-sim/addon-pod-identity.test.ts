/**
 * Add-ons' pod identity associations through the SDK: one association per entry in kube-system, owned by
 * the add-on, readable with DescribePodIdentityAssociation; replaced by UpdateAddon, removed by DeleteAddon.
 */
import {
  CreateAddonCommand,
  DeleteAddonCommand,
  DescribeAddonCommand,
  DescribePodIdentityAssociationCommand,
  UpdateAddonCommand,
} from '@aws-sdk/client-eks';
import { describe, expect, it } from 'vitest';
import { ADDON_DURATIONS } from '../../local/eks-sim/addon-state.js';
import { activeCluster, expectEksError, REGION, useSimulator } from './support.js';

const h = useSimulator();

const CNI_ROLE = 'arn:aws:iam::000000000000:role/vpc-cni';
const OTHER_ROLE = 'arn:aws:iam::000000000000:role/vpc-cni-2';

const describeAddon = async () =>
  (await h.eks.send(new DescribeAddonCommand({ clusterName: 'c', addonName: 'vpc-cni' }))).addon;
const association = async (arn: string) =>
  (
    await h.eks.send(
      new DescribePodIdentityAssociationCommand({ clusterName: 'c', associationId: arn.split('/').pop() }),
    )
  ).association;

async function addonWithAssociation(): Promise<string> {
  await activeCluster(h);
  await h.eks.send(
    new CreateAddonCommand({
      clusterName: 'c',
      addonName: 'vpc-cni',
      podIdentityAssociations: [{ serviceAccount: 'aws-node', roleArn: CNI_ROLE }],
    }),
  );
  await h.admin.advance(ADDON_DURATIONS.create);
  const arns = (await describeAddon())?.podIdentityAssociations ?? [];
  expect(arns).toHaveLength(1);
  return arns[0] as string;
}

describe("add-ons' pod identity associations", () => {
  it('CreateAddon makes one association per entry in kube-system, owned by the add-on', async () => {
    const arn = await addonWithAssociation();
    expect(arn).toMatch(
      new RegExp(`^arn:aws:eks:${REGION}:000000000000:podidentityassociation/c/a-[0-9a-z]{17}$`),
    );
    const addon = await describeAddon();
    const a = await association(arn);
    expect(a).toMatchObject({
      clusterName: 'c',
      namespace: 'kube-system',
      serviceAccount: 'aws-node',
      roleArn: CNI_ROLE,
      associationArn: arn,
      associationId: arn.split('/').pop(),
      tags: {},
      ownerArn: addon?.addonArn,
    });
    expect(a?.createdAt).toBeInstanceOf(Date);
    expect(a?.modifiedAt).toBeInstanceOf(Date);
  });

  it('UpdateAddon with a new list replaces them when the update completes; [] removes them', async () => {
    const old = await addonWithAssociation();
    await h.eks.send(
      new UpdateAddonCommand({
        clusterName: 'c',
        addonName: 'vpc-cni',
        podIdentityAssociations: [{ serviceAccount: 'aws-node', roleArn: OTHER_ROLE }],
      }),
    );
    await h.admin.advance(ADDON_DURATIONS.update);
    const [replacement] = (await describeAddon())?.podIdentityAssociations ?? [];
    expect(replacement).not.toBe(old);
    expect((await association(replacement as string))?.roleArn).toBe(OTHER_ROLE);
    await expectEksError(association(old), 404, 'ResourceNotFoundException');
    await h.eks.send(
      new UpdateAddonCommand({ clusterName: 'c', addonName: 'vpc-cni', podIdentityAssociations: [] }),
    );
    await h.admin.advance(ADDON_DURATIONS.update);
    expect((await describeAddon())?.podIdentityAssociations).toBeUndefined();
    await expectEksError(association(replacement as string), 404, 'ResourceNotFoundException');
  });

  it('DeleteAddon removes them, with or without preserve', async () => {
    for (const preserve of [false, true]) {
      await h.admin.reset();
      const arn = await addonWithAssociation();
      await h.eks.send(new DeleteAddonCommand({ clusterName: 'c', addonName: 'vpc-cni', preserve }));
      await expectEksError(association(arn), 404, 'ResourceNotFoundException');
    }
  });

  it('an entry without its roleArn is refused before anything is made', async () => {
    await activeCluster(h);
    await expectEksError(
      h.eks.send(
        new CreateAddonCommand({
          clusterName: 'c',
          addonName: 'vpc-cni',
          podIdentityAssociations: [{ serviceAccount: 'aws-node', roleArn: 'not-an-arn' }],
        }),
      ),
      400,
      'InvalidParameterException',
    );
    await expectEksError(describeAddon(), 404, 'ResourceNotFoundException');
  });
});
