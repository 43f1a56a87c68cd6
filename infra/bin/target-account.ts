/** The target-account CDK app: `npx cdk deploy -a "npx tsx infra/bin/target-account.ts" -c ...`. */
import { createTargetApp } from '../lib/target-account-app.js';

createTargetApp().app.synth();
