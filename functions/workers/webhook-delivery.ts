/**
 * Entry point of the webhook delivery worker (SQS consumer of the webhook lanes, see
 * QUEUES in functions/platform/definitions.ts). The worker itself is the webhooks slice's:
 * functions/webhooks/delivery.ts.
 */
import { observedWorker } from '../platform/invocation';
import { handler as deliver } from '../webhooks/delivery';

export const handler = observedWorker(deliver);
