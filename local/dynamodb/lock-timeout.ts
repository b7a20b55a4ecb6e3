/**
 * DynamoDB Local's table lock, absorbed by the local runtime.
 *
 * DynamoDB Local runs every write to a table under one lock per table, and a request that
 * waits more than 10 s for it (LocalDBAccess.LOCK_WAIT_TIMEOUT_IN_SECONDS) is answered with
 * HTTP 500 InternalServerError: "This action timed out because it too long waiting for a
 * lock. This request will succeed in actual DynamoDB API". Nothing was applied. A burst of
 * concurrent transactions on a loaded 2-core machine queues that long (measured with three
 * busy loops beside it: 600 concurrent 50-item transactions, 215 refused after the SDK's 4
 * attempts): the SDK's own retries (4 attempts, a shared retry quota) give up, and the handler
 * answers 500. That is the likeliest cause of CI's failures on 1e4e8c3 in artifacts mode
 * (concurrent bills, refunds and customer batches answering 500; not reproduced here).
 *
 * DynamoDB itself has no such lock, so the local runtime re-sends exactly these answers
 * until the lock is had (up to LOCK_RETRY_BUDGET_MS), in the two places a handler's request
 * reaches DynamoDB Local: the in-process client (`addLockRetry`, registered by the local
 * apps through `localDynamoSetup`) and the artifacts gateway (gateway.ts). Any other
 * 500, and every answer of the real service, goes through unchanged.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { backoff } from '../../functions/platform/retry';

/** The words of DynamoDB Local's lock-timeout message (its wording, typo included). */
const LOCK_TIMEOUT = 'too long waiting for a lock';
/** How long one request keeps trying (each try waits up to 10 s inside DynamoDB Local). */
export const LOCK_RETRY_BUDGET_MS = 5 * 60_000;

/** DynamoDB Local's lock-timeout answer: status 500 and its message in the body. */
export const isLockTimeoutAnswer = (status: number | undefined, body: string): boolean => status === 500 && body.includes(LOCK_TIMEOUT);

/** The same, as the SDK raises it. */
export const isLockTimeoutError = (e: unknown): boolean =>
  (e as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode === 500 &&
  String((e as Error)?.message ?? '').includes(LOCK_TIMEOUT);

/** A short, jittered pause before the next try (20-100 ms; the lock is busy: let the queue move). */
export const lockRetryPause = () => backoff(1, { base: 60, cap: 60, jitter: 2 / 3 });

/**
 * Re-sends a request DynamoDB Local refused for its lock, inside the SDK's retry (each HTTP
 * attempt), so the SDK neither counts it as an attempt nor spends its retry quota on it.
 */
export function addLockRetry(client: DynamoDBClient): void {
  const resend = (next: (args: unknown) => Promise<unknown>) => async (args: unknown) => {
    const until = Date.now() + LOCK_RETRY_BUDGET_MS;
    for (;;) {
      try {
        return await next(args);
      } catch (e) {
        if (!isLockTimeoutError(e) || Date.now() > until) throw e;
        await lockRetryPause();
      }
    }
  };
  client.middlewareStack.addRelativeTo(resend as never, {
    relation: 'after',
    toMiddleware: 'retryMiddleware',
    name: 'dynamoLocalLockRetry',
  });
}
