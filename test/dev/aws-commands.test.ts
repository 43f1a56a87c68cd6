/**
 * The AWS CLI block `cloudorch dev` prints: the pure builder's lines, then the lines a real
 * in-process `cloudorch dev` printed, each parsed back into its flags and sent as the matching SDK
 * call with exactly those parameters (no AWS CLI is installed here; the SDK speaks the same wire).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { EKSClient, ListClustersCommand } from '@aws-sdk/client-eks';
import {
  DescribeStateMachineCommand,
  GetExecutionHistoryCommand,
  ListExecutionsCommand,
  SFNClient,
} from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadManifests } from '../../local/cli/load.js';
import { awsCommands, EXECUTION_ARN_PLACEHOLDER } from '../../local/dev/aws-commands.js';
import { type DevHandle, startDev } from '../../local/dev/dev.js';
import { LOCAL_REGION, LOCAL_TABLE } from '../../local/runtime/control-plane.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/dev-small.yaml', import.meta.url));

describe('awsCommands', () => {
  it('builds one line per command from the given endpoints, region and names', () => {
    const lines = awsCommands({
      region: 'eu-west-1',
      tableName: 't',
      stateMachineArn: 'arn:sm',
      endpoints: { dynamodb: 'http://127.0.0.1:1', eks: 'http://127.0.0.1:2', sfn: 'http://127.0.0.1:3' },
    });
    expect(lines).toEqual([
      'export AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local',
      'aws dynamodb scan --table-name t --endpoint-url http://127.0.0.1:1 --region eu-west-1',
      'aws eks list-clusters --endpoint-url http://127.0.0.1:2 --region eu-west-1',
      'aws stepfunctions describe-state-machine --state-machine-arn arn:sm --endpoint-url http://127.0.0.1:3 --region eu-west-1',
      'aws stepfunctions list-executions --state-machine-arn arn:sm --endpoint-url http://127.0.0.1:3 --region eu-west-1',
      `aws stepfunctions get-execution-history --execution-arn '${EXECUTION_ARN_PLACEHOLDER}' --endpoint-url http://127.0.0.1:3 --region eu-west-1`,
    ]);
  });
});

const tmp = mkdtempSync(join(tmpdir(), 'cloudorch-aws-commands-'));
const printed: string[] = [];
let dev: DevHandle;

/** A printed command line as `service operation` plus its flags (the placeholder's quotes dropped). */
function parse(line: string): { op: string; flags: Record<string, string> } {
  const [aws, service, operation, ...rest] = line.trim().split(/ (?=(?:[^']*'[^']*')*[^']*$)/);
  expect(aws).toBe('aws');
  const flags: Record<string, string> = {};
  for (let i = 0; i < rest.length; i += 2) flags[rest[i] ?? ''] = (rest[i + 1] ?? '').replace(/^'|'$/g, '');
  return { op: `${service} ${operation}`, flags };
}

function printedCommand(op: string) {
  const found = printed
    .map((l) => l.trim())
    .filter((l) => l.startsWith('aws '))
    .map(parse)
    .find((c) => c.op === op);
  if (!found) throw new Error(`cloudorch dev printed no \`aws ${op}\`:\n${printed.join('\n')}`);
  return found.flags;
}

/** One flag's value; a missing flag fails the test rather than sending undefined. */
function flag(flags: Record<string, string>, name: string): string {
  const v = flags[name];
  if (v === undefined) throw new Error(`no ${name} in ${JSON.stringify(flags)}`);
  return v;
}

/** Client settings from the printed flags and the printed credentials line. */
function clientConfig(flags: Record<string, string>) {
  const creds = printed.find((l) => l.trim().startsWith('export AWS_ACCESS_KEY_ID='));
  const id = /AWS_ACCESS_KEY_ID=(\S+)/.exec(creds ?? '')?.[1];
  const secret = /AWS_SECRET_ACCESS_KEY=(\S+)/.exec(creds ?? '')?.[1];
  if (!id || !secret) throw new Error(`no credentials line in:\n${printed.join('\n')}`);
  return {
    endpoint: flag(flags, '--endpoint-url'),
    region: flag(flags, '--region'),
    credentials: { accessKeyId: id, secretAccessKey: secret },
  };
}

beforeAll(async () => {
  process.env.CLOUDORCH_DEV_STATE = join(tmp, 'dev.json');
  dev = await startDev({
    port: 0,
    sweepIntervalMs: 60_000,
    speed: 600,
    waitScale: 0.02,
    log: (l) => printed.push(l),
  });
  // One record, so the scan, the cluster list and the execution list have something to show.
  const { manifests, issues } = await loadManifests([EXAMPLE]);
  expect(issues).toEqual([]);
  for (const m of manifests) {
    await dev.cp.store.applySpec(m.id, m.spec);
    await dev.cp.reconcile(m.id); // settle() alone can return before the change feed delivers
  }
});

afterAll(async () => {
  await dev?.stop();
  delete process.env.CLOUDORCH_DEV_STATE;
  rmSync(tmp, { recursive: true, force: true });
});

describe('the commands cloudorch dev prints', () => {
  it('name this run: its endpoints, region, table and state machine', () => {
    const flags = printedCommand('stepfunctions list-executions');
    expect(flags).toEqual({
      '--state-machine-arn': dev.cp.stateMachineArn,
      '--endpoint-url': dev.cp.endpoints.sfn,
      '--region': LOCAL_REGION,
    });
    expect(printedCommand('dynamodb scan')['--table-name']).toBe(LOCAL_TABLE);
    expect(printedCommand('eks list-clusters')['--endpoint-url']).toBe(dev.cp.endpoints.eks);
  });

  it('aws dynamodb scan returns the applied record', async () => {
    const f = printedCommand('dynamodb scan');
    const out = await new DynamoDBClient(clientConfig(f)).send(
      new ScanCommand({ TableName: flag(f, '--table-name') }),
    );
    expect(out.Count).toBeGreaterThan(0);
  });

  it('aws eks list-clusters lists the cluster the record created', async () => {
    const f = printedCommand('eks list-clusters');
    const out = await new EKSClient(clientConfig(f)).send(new ListClustersCommand({}));
    expect(out.clusters?.length).toBeGreaterThan(0);
  });

  it('aws stepfunctions describe-state-machine, list-executions and get-execution-history answer', async () => {
    const d = printedCommand('stepfunctions describe-state-machine');
    const sfn = new SFNClient(clientConfig(d));
    const sm = await sfn.send(
      new DescribeStateMachineCommand({ stateMachineArn: flag(d, '--state-machine-arn') }),
    );
    expect(sm.stateMachineArn).toBe(dev.cp.stateMachineArn);
    const l = printedCommand('stepfunctions list-executions');
    const list = await sfn.send(
      new ListExecutionsCommand({ stateMachineArn: flag(l, '--state-machine-arn') }),
    );
    const executionArn = list.executions?.[0]?.executionArn;
    expect(executionArn).toBeDefined();
    const h = printedCommand('stepfunctions get-execution-history');
    expect(h['--execution-arn']).toBe(EXECUTION_ARN_PLACEHOLDER);
    const history = await new SFNClient(clientConfig(h)).send(
      new GetExecutionHistoryCommand({ executionArn }),
    );
    expect(history.events?.[0]?.type).toBe('ExecutionStarted');
  });
});
