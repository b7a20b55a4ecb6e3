import { existsSync, readFileSync } from 'node:fs';
import { localPaths } from '../local/paths';

/** `--name value` flags (and `--flag` booleans): the SDK CLI's parser. */
export { parseFlags as flags } from '../sdk/src/cli/index';

/** What `npm start` wrote about the running local stack, if anything. */
export function localStack(): Record<string, string> | undefined {
  const f = localPaths().endpoints;
  if (!existsSync(f)) return undefined;
  return JSON.parse(readFileSync(f, 'utf8')) as Record<string, string>;
}

/** Point the AWS SDK at the local stack (emulators accept any credentials). */
export function useLocalStack(local: Record<string, string>): void {
  for (const k of ['AWS_ENDPOINT_URL_DYNAMODB', 'AWS_ENDPOINT_URL_SQS', 'AWS_REGION', 'AWS_ACCESS_KEY_ID', 'TABLE_NAME']) {
    if (local[k]) process.env[k] = local[k];
  }
  process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
}
