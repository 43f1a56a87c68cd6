/**
 * IAM users and their keys on a moto server whose access checks are not on yet (the setup requests
 * of a suite that then has moto verify signatures and evaluate IAM policies).
 */
export interface Keys {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** IAM and STS query calls during setup: moto routes them by the credential scope and checks nothing yet. */
export async function query(
  url: string,
  service: 'iam' | 'sts',
  params: Record<string, string>,
): Promise<string> {
  const res = await fetch(`${url}/`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `AWS4-HMAC-SHA256 Credential=AKIDSETUP/20260101/us-east-1/${service}/aws4_request, SignedHeaders=host, Signature=0`,
    },
    body: new URLSearchParams({ ...params, Version: service === 'iam' ? '2010-05-08' : '2011-06-15' }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${params['Action']}: ${res.status} ${text}`);
  return text;
}

export const field = (xml: string, name: string) =>
  new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1] ?? '';

/** A user with `policy` (a JSON policy document) as its inline policy, and its access key: 3 requests. */
export async function userKeys(url: string, user: string, policy: string): Promise<Keys> {
  await query(url, 'iam', { Action: 'CreateUser', UserName: user });
  const xml = await query(url, 'iam', { Action: 'CreateAccessKey', UserName: user });
  await query(url, 'iam', {
    Action: 'PutUserPolicy',
    UserName: user,
    PolicyName: 'p',
    PolicyDocument: policy,
  });
  return { accessKeyId: field(xml, 'AccessKeyId'), secretAccessKey: field(xml, 'SecretAccessKey') };
}
