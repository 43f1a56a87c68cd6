/**
 * Bounded paging for the observation's list calls: every page is read up to a limit, and a list that
 * goes on past it is an error, never a silently truncated observation.
 */
import { PermanentError } from '../core/errors.js';

/** What a list call returns: one page of items and the token of the next, if any. */
export interface Page<T> {
  readonly items: readonly T[];
  readonly nextToken?: string | undefined;
}

/** A list longer than the observation reads; `code` and `remediation` say which list and what to do. */
export class TooManyPagesError extends PermanentError {
  constructor(what: string, maxPages: number, code: string, remediation: string) {
    super(`${what}: more than ${maxPages} pages`, { code, remediation });
  }
}

/** Reads up to `maxPages` pages; throws `tooMany()` when there are more. */
export async function allPages<T>(
  maxPages: number,
  fetch: (nextToken: string | undefined) => Promise<Page<T>>,
  tooMany: () => PermanentError,
): Promise<T[]> {
  const items: T[] = [];
  let nextToken: string | undefined;
  for (let page = 0; page < maxPages; page++) {
    const out = await fetch(nextToken);
    items.push(...out.items);
    nextToken = out.nextToken;
    if (!nextToken) return items;
  }
  throw tooMany();
}

/** `nextToken` as an optional request member: absent on the first page. */
export const tokenParam = (nextToken: string | undefined): { nextToken?: string } =>
  nextToken ? { nextToken } : {};
