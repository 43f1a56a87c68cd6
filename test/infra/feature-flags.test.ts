/**
 * Every feature flag the pinned aws-cdk-lib recommends is set in this repository's cdk.json and in
 * the example app's, so an upgrade that brings new recommendations fails here until they are
 * chosen. A flag set to anything but its recommended value must be named, with its reason, in
 * docs/deploy.md ("Feature flags").
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CURRENTLY_RECOMMENDED_FLAGS } from 'aws-cdk-lib/cx-api';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/lib/functions.js';
import { cdkJsonContext } from './support.js';

const CDK_JSONS = ['cdk.json', 'examples/cdk-app/cdk.json'];

/** The "Feature flags" section of docs/deploy.md. */
function flagSection(): string {
  const doc = readFileSync(join(PROJECT_ROOT, 'docs', 'deploy.md'), 'utf8');
  const start = doc.indexOf('### Feature flags');
  expect(start, 'docs/deploy.md has a "### Feature flags" section').toBeGreaterThan(-1);
  const end = doc.indexOf('\n#', start + 1);
  return doc.slice(start, end === -1 ? undefined : end);
}

describe.each(CDK_JSONS)('%s', (file) => {
  const context = cdkJsonContext(join(PROJECT_ROOT, file));

  it('sets every flag the pinned aws-cdk-lib recommends', () => {
    const missing = Object.keys(CURRENTLY_RECOMMENDED_FLAGS).filter((flag) => !(flag in context));
    expect(missing).toEqual([]);
  });

  it('documents every flag it sets to another value than the recommended one', () => {
    const section = flagSection();
    const differing = Object.entries(CURRENTLY_RECOMMENDED_FLAGS)
      .filter(([flag, value]) => JSON.stringify(context[flag]) !== JSON.stringify(value))
      .map(([flag]) => flag);
    for (const flag of differing) expect(section, flag).toContain(`\`${flag}\``);
  });
});
