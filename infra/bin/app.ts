/** The CDK app: `cdk synth` / `cdk deploy` run this (see cdk.json). */
import { createApp } from '../lib/app.js';

const { app } = await createApp();
app.synth();
