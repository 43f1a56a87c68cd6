/** The credentials every local server accepts (they check none): one value for dev, the CLI and tools. */
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;
