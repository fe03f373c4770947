/** A Bedrock channel's key, `AK|SK|Region` with an optional 4th part, an STS session token. */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  sessionToken?: string;
}

/** Splits the key; undefined when it lacks a part (the channel form refuses such keys on save). */
export function parseAwsKey(key: string): AwsCredentials | undefined {
  const parts = key.trim().split('|').map((p) => p.trim());
  if (parts.length < 3 || parts.length > 4 || !parts[0] || !parts[1] || !parts[2]) return undefined;
  return { accessKeyId: parts[0], secretAccessKey: parts[1], region: parts[2], sessionToken: parts[3] || undefined };
}
