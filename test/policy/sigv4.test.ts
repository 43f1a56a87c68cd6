/**
 * The policy function's SigV4 signer against AWS's published example (the S3 GET Object example of
 * "Signature Calculations for the Authorization Header"); signed-get.test.ts checks it against a
 * server that verifies signatures with its own implementation.
 */
import { describe, expect, it } from 'vitest';
import { amzDate, EMPTY_PAYLOAD_SHA256, encodeS3Key, signRequest } from '../../lambdas/policy/sigv4.js';

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
});
