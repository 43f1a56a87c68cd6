/** The one reading of a policy bundle's `s3://bucket/key` (the stack output PolicyBundleUrl). */

/** `s3://bucket/key` as its bucket and key, or undefined when it is not of that form. */
export function parseS3Url(url: string): { bucket: string; key: string } | undefined {
  const m = /^s3:\/\/([^/]+)\/(.+)$/.exec(url);
  return m ? { bucket: m[1] as string, key: m[2] as string } : undefined;
}
