/**
 * Reads and conditional writes of target claims (claims.ts): taking a target for a record, asking
 * who holds it, and giving it up.
 */
import type { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { type ClaimItem, claimId, describeTarget, type Target } from './claims.js';
import { TargetClaimedError } from './errors.js';
import { isConditionFailure, readItem, readParsed, type Table } from './items.js';
import type { StoredItem } from './record.js';
import { attributeNames } from './update.js';

/**
 * A claim whose holder record is gone is taken over only after this long: the holder may be a
 * concurrent apply that claimed and has not written its record yet.
 */
const STALE_CLAIM_MS = 60_000;

/**
 * Claims `target` for `holder`; true when this call wrote the claim. A claim is stale, and taken
 * over, when its holder record is gone (and was not created in the last minute: it may be an apply
 * on its way) or no longer names this target (a rename, or a crash between the two writes).
 */
export async function claimTarget(t: Table, target: Target, holder: string, now: Date): Promise<boolean> {
  const item = { id: claimId(target), holder, claimedAt: now.toISOString() };
  // Read first: a record reconciling its own target (every Observe) writes nothing.
  let claim = await readItem(t, item.id);
  // The refused put, when there was one, is the cause of the TargetClaimedError that follows.
  let refused: ConditionalCheckFailedException | undefined;
  if (!claim) {
    refused = await putClaim(t, item, 'attribute_not_exists(#id)');
    if (!refused) return true;
    claim = await readItem(t, item.id);
  }
  const other = holderOf(claim);
  if (other === holder) return false;
  if (other !== undefined && !(await claimIsStale(t, claim ?? {}, other, target, now)))
    throw new TargetClaimedError(describeTarget(target), other, { cause: refused });
  const condition = other === undefined ? 'attribute_not_exists(#holder)' : '#holder = :other';
  refused = await putClaim(t, item, condition, other === undefined ? undefined : { ':other': other });
  if (refused)
    throw new TargetClaimedError(describeTarget(target), 'another record (claimed concurrently)', {
      cause: refused,
    });
  return true;
}

/** The record id holding a target, when that claim is live (its holder exists and still names it). */
export async function claimHolder(t: Table, target: Target, now: Date): Promise<string | undefined> {
  const claim = await readItem(t, claimId(target));
  const holder = holderOf(claim);
  if (!claim || holder === undefined) return undefined;
  return (await claimIsStale(t, claim, holder, target, now)) ? undefined : holder;
}

/** Gives up a claim, only if `holder` still holds it. */
export async function releaseClaim(t: Table, target: Target, holder: string): Promise<void> {
  try {
    await t.doc.send(
      new DeleteCommand({
        TableName: t.name,
        Key: { id: claimId(target) },
        ConditionExpression: '#holder = :holder',
        ExpressionAttributeNames: { '#holder': 'holder' },
        ExpressionAttributeValues: { ':holder': holder },
      }),
    );
  } catch (err) {
    if (!isConditionFailure(err)) throw err;
  }
}

function holderOf(claim: StoredItem | undefined): string | undefined {
  return typeof claim?.['holder'] === 'string' ? claim['holder'] : undefined;
}

async function claimIsStale(
  t: Table,
  claim: StoredItem,
  holder: string,
  target: Target,
  now: Date,
): Promise<boolean> {
  const parsed = await readParsed(t, holder);
  if (parsed && parsed.kind !== 'record') return false; // a malformed holder may still be fixed
  if (parsed?.kind === 'record' && claimId(parsed.record.spec) === claimId(target)) return false;
  // The holder is gone or names another target: stale, unless it claimed within the last minute
  // (an apply, or a rename, on its way between its claim and its record write).
  const since = typeof claim['claimedAt'] === 'string' ? Date.parse(claim['claimedAt']) : Number.NaN;
  return !(now.getTime() - since < STALE_CLAIM_MS);
}

/** A conditional put of a claim: undefined when written, the refusal when the condition failed. */
async function putClaim(
  t: Table,
  item: ClaimItem,
  condition: string,
  values?: Record<string, string>,
): Promise<ConditionalCheckFailedException | undefined> {
  try {
    await t.doc.send(
      new PutCommand({
        TableName: t.name,
        Item: item,
        ConditionExpression: condition,
        ExpressionAttributeNames: attributeNames(condition),
        ...(values ? { ExpressionAttributeValues: values } : {}),
      }),
    );
    return undefined;
  } catch (err) {
    if (isConditionFailure(err)) return err;
    throw err;
  }
}
