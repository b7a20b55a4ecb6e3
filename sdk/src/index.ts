/**
 * @idpay/sdk: a typed client for the idpay API and a webhook verifier.
 *
 *   import { createClient, unwrap, verifyWebhook } from '@idpay/sdk';
 *   const idpay = createClient({ baseUrl, apiKey });
 *   const { data, error } = await idpay.POST('/v1/billing/intent', { body: { ... } });
 *   const balance = await unwrap(idpay.GET('/v1/balance/details')); // data, or throws IdpayError
 *   for await (const event of idpay.paginate('/v1/events')) { ... } // every item of any list
 *
 * Types come from the API's OpenAPI document (`paths`, `components`, `webhooks`, `operations`).
 */
export {
  API_VERSION,
  createClient,
  retryingFetch,
  parseRetryAfter,
  backoffMs,
  isRetryShortly,
  IN_PROGRESS_MESSAGE,
  IN_PROGRESS_CODE,
  RETRY_SHORTLY_CODES,
} from './client.js';
export type {
  CallResponse,
  CreateClientOptions,
  IdpayClient,
  IdpayMethod,
  KnownPath,
  ListItem,
  ListPath,
  OperationInit,
  PaginateInit,
  RetryOptions,
} from './client.js';
export { LISTS, EVENT_TYPES } from './generated/meta.js';
export { newWebhookSecret, signatureHeaders } from './signing.js';
export { IdpayError, isIdpayError, unwrap, errorTypeForStatus, ERROR_TYPES } from './errors.js';
export type { CallResult, IdpayErrorBody, IdpayErrorType, IdpayFieldError } from './errors.js';
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
