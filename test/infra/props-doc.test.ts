/** Every prop of the CloudOrch construct is documented, and docs/deploy.md shows exactly that. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/lib/functions.js';
import { cloudOrchProps, propsTable } from './props-doc.js';

describe('CloudOrchProps', () => {
  const props = cloudOrchProps();

  it('documents what each prop does, and the default of each optional one', () => {
    expect(props.length).toBeGreaterThan(10);
    for (const p of props) {
      expect(p.doc.length, p.name).toBeGreaterThan(20);
      if (!p.required) expect(p.defaultValue, `${p.name} has no @default`).toBeTruthy();
    }
    expect(props.filter((p) => p.required).map((p) => p.name)).toEqual(['policyBundle']);
  });

  it('is the table docs/deploy.md shows', () => {
    const doc = readFileSync(join(PROJECT_ROOT, 'docs', 'deploy.md'), 'utf8');
    expect(doc).toContain(propsTable(props));
  });
});
