/**
 * The SDK's typed errors and its "retry shortly" rule (sdk/src/errors.ts, sdk/src/client.ts):
 * IdpayError takes `code`, `type` and `requestId` from the body when present (the error bodies
 * of DESIGN 9.5) and derives them from the status and X-Request-Id for bodies without them;
 * a 409 is retried by its `code` when it has one, by the exact in-progress message only when
 * it has none; and the SDK's contention codes are the ones the service releases the
 * Idempotency-Key for (functions/http/idempotency.ts), so a rename on either side fails here.
 */
import { describe, expect, it } from 'vitest';
import { isRetryLater } from '../../functions/http/idempotency';
import {
  ERROR_TYPES,
  errorTypeForStatus,
  IdpayError,
  IN_PROGRESS_CODE,
  IN_PROGRESS_MESSAGE,
  isIdpayError,
  isRetryShortly,
  RETRY_SHORTLY_CODES,
  unwrap,
} from '../../sdk/src/index';

const response = (status: number, headers: Record<string, string> = {}) =>
  new Response(null, { status, statusText: status === 404 ? 'Not Found' : '', headers });

describe('IdpayError', () => {
  it('a body without type nor requestId (an older server, a proxy): type from the status, requestId from X-Request-Id', () => {
    const body = { statusCode: 404, success: false, message: 'Refund not found', code: 'refund_not_found' };
    const e = IdpayError.fromResponse(response(404, { 'X-Request-Id': 'req-1' }), body);
    expect(e).toBeInstanceOf(Error);
    expect(isIdpayError(e)).toBe(true);
    expect({ status: e.status, code: e.code, type: e.type, message: e.message, requestId: e.requestId, name: e.name }).toEqual({
      status: 404,
      code: 'refund_not_found',
      type: 'not_found_error',
      message: 'Refund not found',
      requestId: 'req-1',
      name: 'IdpayError',
    });
    expect(e.body).toBe(body);
    expect(e.errors).toEqual([]);
  });

  it('a body with type and requestId: both taken from it; field errors kept', () => {
    const body = {
      statusCode: 400,
      success: false,
      message: 'Invalid request parameters',
      code: 'invalid_request_parameters',
      type: 'invalid_request_error',
      requestId: 'req-body',
      errors: [{ path: 'url', message: 'Invalid URL' }, { nonsense: true }],
    };
    const e = IdpayError.fromResponse(response(400, { 'X-Request-Id': 'req-header' }), body);
    expect(e).toMatchObject({ status: 400, code: 'invalid_request_parameters', type: 'invalid_request_error', requestId: 'req-body' });
    expect(e.errors).toEqual([{ path: 'url', message: 'Invalid URL' }]);
  });

  it("docUrl is made absolute against the answer it came in (relative when that URL is unknown); param is the body's", () => {
    const body = {
      statusCode: 400,
      success: false,
      message: 'Refund exceeds refundable amount',
      code: 'refund_exceeds_refundable',
      type: 'invalid_request_error',
      docUrl: '/docs#error-refund_exceeds_refundable',
      param: 'amount',
      requestId: 'req-1',
    };
    const answer = { status: 400, statusText: '', headers: new Headers(), url: 'https://sandbox.api.idpay.example/v1/refunds/initiate' };
    expect(IdpayError.fromResponse(answer, body)).toMatchObject({
      docUrl: 'https://sandbox.api.idpay.example/docs#error-refund_exceeds_refundable',
      param: 'amount',
    });
    expect(IdpayError.fromResponse(response(400), body).docUrl).toBe('/docs#error-refund_exceeds_refundable');
    expect(IdpayError.fromResponse(response(404), { message: 'Refund not found' })).toMatchObject({ docUrl: undefined, param: undefined });
  });

  it('an unknown type is not trusted (derived from the status instead); a body that is not JSON keeps the status text', () => {
    expect(IdpayError.fromResponse(response(409), { message: 'x', type: 'weird' }).type).toBe('conflict_error');
    const e = IdpayError.fromResponse(response(404), '<html>');
    expect(e).toMatchObject({ status: 404, message: 'Not Found', code: undefined, requestId: undefined });
  });

  it('a bill or pay answer (an array): the first element speaks; the whole array is the body', () => {
    const body = [
      { statusCode: 403, success: false, message: 'Customer has not approved billing', code: 'billing_not_approved' },
      { statusCode: 403, success: false, message: 'Merchant is blocked by the customer', code: 'merchant_blocked' },
    ];
    const e = IdpayError.fromResponse(response(403), body);
    expect(e).toMatchObject({
      status: 403,
      type: 'permission_error',
      message: 'Customer has not approved billing',
      code: 'billing_not_approved',
    });
    expect(e.body).toBe(body);
  });

  it('every status maps to one of the seven types', () => {
    const map = Object.fromEntries([400, 401, 403, 404, 405, 409, 410, 413, 429, 500, 502, 503].map((s) => [s, errorTypeForStatus(s)]));
    expect(map).toEqual({
      400: 'invalid_request_error',
      401: 'authentication_error',
      403: 'permission_error',
      404: 'not_found_error',
      405: 'invalid_request_error',
      409: 'conflict_error',
      410: 'invalid_request_error',
      413: 'invalid_request_error',
      429: 'rate_limit_error',
      500: 'api_error',
      502: 'api_error',
      503: 'api_error',
    });
    for (const t of Object.values(map)) expect(ERROR_TYPES).toContain(t);
  });

  it('is recognised across copies of the class (the ESM and CommonJS builds): by its brand, not its prototype', () => {
    const e = new IdpayError({ status: 429, message: 'Too many requests' });
    const copy = Object.assign(Object.create(Error.prototype) as object, e);
    for (const s of Object.getOwnPropertySymbols(e))
      Object.defineProperty(copy, s, { value: (e as unknown as Record<symbol, unknown>)[s] });
    expect(copy instanceof IdpayError).toBe(true);
    expect(new Error('x') instanceof IdpayError).toBe(false);
    expect({ status: 429 } instanceof IdpayError).toBe(false);
  });
});

describe('unwrap', () => {
  it('returns data on a 2xx (207 included) and throws the IdpayError otherwise', async () => {
    const ok = { data: { statusCode: 200, data: { x: 1 } }, error: undefined, response: response(200) };
    expect(await unwrap(ok)).toEqual({ statusCode: 200, data: { x: 1 } });
    const multi = { data: [{ statusCode: 201 }, { statusCode: 403 }], error: undefined, response: response(207) };
    expect(await unwrap(Promise.resolve(multi))).toHaveLength(2);
    const bad = {
      data: undefined,
      error: {
        statusCode: 401,
        success: false,
        message: 'Invalid API key',
        code: 'api_key_invalid',
        type: 'authentication_error',
        requestId: 'r',
      },
      response: response(401),
    };
    const thrown = await unwrap(bad).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(IdpayError);
    expect(thrown).toMatchObject({
      status: 401,
      type: 'authentication_error',
      message: 'Invalid API key',
      code: 'api_key_invalid',
      requestId: 'r',
    });
  });
});

describe('409: retry shortly?', () => {
  it('by code when the body has one; by the exact in-progress message only when it has none', () => {
    expect(isRetryShortly({ statusCode: 409, message: IN_PROGRESS_MESSAGE, code: IN_PROGRESS_CODE })).toBe(true);
    expect(isRetryShortly({ statusCode: 409, message: IN_PROGRESS_MESSAGE })).toBe(true);
    expect(isRetryShortly({ statusCode: 409, message: 'anything', code: IN_PROGRESS_CODE })).toBe(true);
    // a code decides: the message alone does not make another code retryable
    expect(isRetryShortly({ statusCode: 409, message: IN_PROGRESS_MESSAGE, code: 'idempotency_mismatch' })).toBe(false);
    expect(
      isRetryShortly({ statusCode: 409, message: 'Idempotency key reused with a different request', code: 'idempotency_mismatch' }),
    ).toBe(false);
    expect(isRetryShortly({ statusCode: 409, message: 'Recurring schedule is not active', code: 'schedule_not_active' })).toBe(false);
    expect(isRetryShortly({ statusCode: 409, message: 'Idempotency key reused with a different request' })).toBe(false);
    expect(isRetryShortly(null)).toBe(false);
    expect(isRetryShortly([])).toBe(false);
  });

  it('a bill or pay answer: only when every element says so', () => {
    const busy = { statusCode: 409, success: false, message: 'busy', code: 'billing_contention' };
    expect(isRetryShortly([busy, busy])).toBe(true);
    expect(isRetryShortly([busy, { statusCode: 409, message: 'Billing request is not pending', code: 'billing_not_pending' }])).toBe(false);
  });

  it("the SDK's contention codes are those the service releases the Idempotency-Key for (a retry may succeed)", async () => {
    // the groups declaring them (the docs project checks the whole table: test/docs/openapi.test.ts)
    await Promise.all([
      import('../../functions/billing/messages'),
      import('../../functions/transactions/messages'),
      import('../../functions/disputes/views'),
    ]);
    for (const code of RETRY_SHORTLY_CODES) {
      if (code === IN_PROGRESS_CODE) continue; // answered before the key is taken: nothing to release
      const body = JSON.stringify({ statusCode: 409, success: false, message: 'retry shortly', code });
      expect(isRetryLater({ statusCode: 409, body }), code).toBe(true);
    }
    expect(isRetryLater({ statusCode: 409, body: JSON.stringify({ statusCode: 409, code: 'idempotency_mismatch' }) })).toBe(false);
  });
});
