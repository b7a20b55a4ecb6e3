/**
 * Entry point of the webhook delivery worker (SQS consumer of the webhook lanes, see
 * QUEUES in functions/platform/definitions.ts). The worker itself is the webhooks slice's:
 * functions/webhooks/delivery.ts.
 */
export { handler } from '../webhooks/delivery';
