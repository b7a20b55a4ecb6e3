/**
 * @idpay/sdk: a typed client for the idpay API and a webhook verifier.
 *
 *   import { createClient, verifyWebhook } from '@idpay/sdk';
 *   const idpay = createClient({ baseUrl, apiKey });
 *   const { data, error } = await idpay.POST('/v1/billing/intent', { body: { ... } });
 *
 * Types come from the OpenAPI document (`paths`, `components`, `webhooks`, `operations`).
 */
export { createClient, retryingFetch, parseRetryAfter, backoffMs, IN_PROGRESS_MESSAGE } from './client.js';
export type { CreateClientOptions, IdpayClient, RetryOptions } from './client.js';
export { verifyWebhook, WebhookVerificationError } from './webhooks.js';
export type {
  VerifyWebhookOptions,
  WebhookEvent,
  WebhookEventOf,
  WebhookEventType,
  WebhookHeaders,
  WebhookVerificationErrorCode,
} from './webhooks.js';
export type { components, operations, paths, webhooks } from './generated/openapi.js';

import type { components } from './generated/openapi.js';
/** The document's named schemas, e.g. `Schemas['BillingResponseEvent']`. */
export type Schemas = components['schemas'];
