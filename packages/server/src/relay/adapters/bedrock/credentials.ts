import { isAwsRegion } from '@modelgate/shared';

/** A Bedrock channel's key, `AK|SK|Region` with an optional 4th part, an STS session token. */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  sessionToken?: string;
}

/**
 * Splits the key; undefined when it lacks a part or its region is not a region name (the channel
 * form refuses such keys on save; a row saved before that rule is refused here, since the region
 * becomes the upstream host).
 */
export function parseAwsKey(key: string): AwsCredentials | undefined {
  const parts = key.trim().split('|').map((p) => p.trim());
  if (parts.length < 3 || parts.length > 4 || !parts[0] || !parts[1] || !parts[2] || !isAwsRegion(parts[2])) return undefined;
  return { accessKeyId: parts[0], secretAccessKey: parts[1], region: parts[2], sessionToken: parts[3] || undefined };
}
