/**
 * The policy function's SigV4 signer against AWS's published example (the S3 GET Object example of
 * "Signature Calculations for the Authorization Header"); signed-get.test.ts checks it against a
 * server that verifies signatures with its own implementation.
 */
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  amzDate,
  EMPTY_PAYLOAD_SHA256,
  encodeS3Key,
  encodeSegment,
  signRequest,
  type UnsignedRequest,
} from '../../lambdas/aws/sigv4.js';
import { MOTO_ENV } from '../provider/support/moto.js';

const EXAMPLE = {
  accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
};

describe('SigV4', () => {
  it("gives AWS's published signature for its S3 GET example", () => {
    const headers = signRequest(
      {
        method: 'GET',
        host: 'examplebucket.s3.amazonaws.com',
        path: '/test.txt',
        headers: { Range: 'bytes=0-9' },
        region: 'us-east-1',
        service: 's3',
        contentSha256Header: true,
      },
      EXAMPLE,
      new Date('2013-05-24T00:00:00Z'),
    );
    expect(headers).toMatchObject({
      'x-amz-date': '20130524T000000Z',
      'x-amz-content-sha256': EMPTY_PAYLOAD_SHA256,
      range: 'bytes=0-9',
      authorization:
        'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, ' +
        'SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, ' +
        'Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    });
  });

  it('signs the session token it sends', () => {
    const req = {
      method: 'GET' as const,
      host: 'b.s3.eu-west-1.amazonaws.com',
      path: '/k',
      headers: {},
      region: 'eu-west-1',
      service: 's3',
      contentSha256Header: true,
    };
    const now = new Date('2026-01-02T03:04:05.678Z');
    const plain = signRequest(req, EXAMPLE, now);
    const withToken = signRequest(req, { ...EXAMPLE, sessionToken: 'token' }, now);
    expect(plain['x-amz-security-token']).toBeUndefined();
    expect(withToken['x-amz-security-token']).toBe('token');
    expect(withToken['authorization']).toContain(
      'SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token,',
    );
    expect(withToken['authorization']).not.toBe(plain['authorization']);
    expect(amzDate(now)).toBe('20260102T030405Z');
  });

  it('encodes a key as S3 signs it: every byte but the unreserved ones, slashes kept', () => {
    expect(encodeS3Key("policy/a b+c!'()*~._-/ü.tar.gz")).toBe(
      'policy/a%20b%2Bc%21%27%28%29%2A~._-/%C3%BC.tar.gz',
    );
  });

  it("gives the signatures of AWS's SigV4 test suite (get-vanilla, post-vanilla)", () => {
    const suite = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
    const at = new Date('2015-08-30T12:36:00Z');
    const req = {
      host: 'example.amazonaws.com',
      path: '/',
      headers: {},
      region: 'us-east-1',
      service: 'service',
    };
    expect(signRequest({ ...req, method: 'GET' }, suite, at)['authorization']).toMatch(
      /SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31$/,
    );
    expect(signRequest({ ...req, method: 'POST' }, suite, at)['authorization']).toMatch(
      /Signature=5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b$/,
    );
  });

  it("agrees with botocore's SigV4 on S3 GETs and Lambda Invokes, tokens, bodies and odd paths", () => {
    const bin = process.env[MOTO_ENV];
    if (!bin) throw new Error(`${MOTO_ENV} is not set: run the tests through scripts/test.sh`);
    const token = { ...EXAMPLE, sessionToken: 'IQoJb3JpZ2luX2VjE/+=token' };
    const arn = 'arn:aws:lambda:us-east-1:123456789012:function:cloudorch-SweepShard';
    const cases: (Omit<UnsignedRequest, 'body'> & { creds: typeof token; body?: string })[] = [
      ...["policy/bundle (1)+'x'~%.tar.gz", 'policy/ünï 😀//a*b!.tgz', '/leading/slash'].map((key) => ({
        method: 'GET' as const,
        host: 'cloudorch-policy.s3.eu-west-1.amazonaws.com',
        path: `/${encodeS3Key(key)}`,
        headers: { 'if-none-match': '"5d41402abc4b2a76b9719d911017c592"' },
        region: 'eu-west-1',
        service: 's3',
        contentSha256Header: true,
        creds: token,
      })),
      ...[arn, 'cloudorch-SweepShard'].map((name) => ({
        method: 'POST' as const,
        host: 'lambda.us-east-1.amazonaws.com',
        path: `/2015-03-31/functions/${encodeSegment(name)}/invocations`,
        headers: {
          'x-amz-invocation-type': 'Event',
          'content-type': 'application/json',
          'content-length': '27',
        },
        body: '{"periodBucket":"x","s":[]}',
        region: 'us-east-1',
        service: 'lambda',
        creds: token,
      })),
    ];
    const at = new Date('2026-03-01T00:00:00.000Z');
    const signed = cases.map(({ creds, body, ...req }) => ({
      ...req,
      ...creds,
      body,
      headers: signRequest({ ...req, body: body ? Buffer.from(body) : undefined }, creds, at),
    }));
    const script = join(import.meta.dirname, 'support', 'botocore_sign.py');
    const theirs = JSON.parse(
      execFileSync(join(dirname(bin), 'python'), [script], { input: JSON.stringify(signed) }).toString(),
    ) as string[];
    expect(theirs).toHaveLength(cases.length);
    expect(signed.map((s) => s.headers['authorization']?.split('Signature=')[1])).toEqual(theirs);
  });
});
