import { describe, expect, it } from 'vitest';
import { errorResponse, ok, toResponse } from '../../functions/http/endpoint';
import { AppError, MSG, badRequest, tooManyRequests } from '../../functions/platform/errors';
import { matchRoute, ROUTES, routeKey, routesFor } from '../../functions/routes';

describe('envelopes', () => {
  it('turns an unexpected error into a 500 envelope without internals', () => {
    const r = errorResponse(new Error('ConditionalCheckFailed on table t-secret with key APIKEY#abc'), 'req-1');
    expect(r.statusCode).toBe(500);
    expect(JSON.parse(r.body)).toEqual({
      statusCode: 500,
      success: false,
      message: 'Internal server error',
      code: 'internal_error',
      type: 'api_error',
      docUrl: '/docs#error-internal_error',
      requestId: 'req-1',
    });
    expect(r.body).not.toContain('secret');
  });

  it('keeps the message, errors and headers of a client error, with its code, type and request id', () => {
    const r = errorResponse(badRequest(MSG.invalidRequest, [{ path: 'amount', message: 'too small' }]), 'req-2');
    expect(r.statusCode).toBe(400);
    expect(JSON.parse(r.body)).toEqual({
      statusCode: 400,
      success: false,
      message: 'Invalid request parameters',
      code: 'invalid_request_parameters',
      type: 'invalid_request_error',
      docUrl: '/docs#error-invalid_request_parameters',
      requestId: 'req-2',
      errors: [{ path: 'amount', message: 'too small' }],
    });
    const limited = errorResponse(tooManyRequests(17), 'req-3');
    expect(limited.headers['Retry-After']).toBe('17');
    expect(JSON.parse(limited.body)).toEqual({
      statusCode: 429,
      success: false,
      message: 'Too many requests',
      code: 'rate_limited',
      type: 'rate_limit_error',
      docUrl: '/docs#error-rate_limited',
      requestId: 'req-3',
    });
  });

  it('builds the success envelope of the spec', () => {
    const r = toResponse(ok(201, 'Created', { id: 'x' }, { total: 3 }));
    expect(r.statusCode).toBe(201);
    expect(JSON.parse(r.body)).toEqual({ statusCode: 201, success: true, message: 'Created', data: { id: 'x' }, total: 3 });
    expect(r.headers['Content-Type']).toBe('application/json');
    expect(new AppError(409, MSG.lastOwner)).toMatchObject({ statusCode: 409, code: 'last_owner', type: 'conflict_error' });
  });
});

describe('route table', () => {
  it('has one entry per method and path, each with a handler module', () => {
    const keys = ROUTES.map(routeKey);
    expect(new Set(keys).size).toBe(keys.length);
    for (const r of ROUTES) expect(r.handler).toMatch(/^api\/[a-z-]+\/[a-z-]+$/);
  });

  it('registers every endpoint of the spec and the contract', () => {
    const keys = new Set(ROUTES.map(routeKey));
    for (const k of [
      'POST /v1/bank/customers',
      'POST /v1/bank/customer/device/link',
      'GET /v1/balance/details',
      'POST /v1/customer/device/lookup',
      'GET /v1/customer/banks',
      'POST /v1/billing/intent',
      'POST /v1/customer/bill',
      'POST /v1/customer/pay',
      'POST /v1/billing/intent-response',
      'POST /v1/billing/bank-response',
      'POST /v1/billing/recurring/create',
      'POST /v1/recurring/{scheduleId}/pause',
      'POST /v1/recurring/{scheduleId}/resume',
      'GET /v1/recurring',
      'GET /v1/recurring/{scheduleId}',
      'DELETE /v1/recurring/{scheduleId}',
      'GET /v1/merchant/customer-decisions',
      'GET /v1/customer-decisions/{id}',
      'PATCH /v1/provider/merchant/trust',
      'GET /v1/provider/merchant/trust',
      'GET /v1/provider/merchant/trust/multiple',
      'GET /v1/provider/merchant/trust/device-permission',
      'POST /v1/provider/merchant/trust/validate',
      'GET /v1/provider/merchant',
      'GET /v1/provider/merchants',
      'POST /v1/provider/merchants',
      'PATCH /v1/provider/merchant',
      'GET /v1/bank/customer-decisions',
      'PUT /v1/bank/customer-decisions/{id}',
      'GET /v1/bank/customer/subscriptions',
      'GET /v1/transaction-history',
      'GET /v1/transaction-details',
      'POST /v1/refunds/initiate',
      'GET /v1/refunds/{refundId}/status',
      'POST /v1/operator/participants',
      'POST /v1/operator/participants/{id}/keys',
      'DELETE /v1/operator/keys/{keyId}',
      'PATCH /v1/operator/providers/{id}',
      'POST /v1/webhooks/endpoints',
      'GET /v1/webhooks/endpoints',
      'DELETE /v1/webhooks/endpoints/{id}',
      'GET /v1/webhooks/deliveries',
      'POST /v1/webhooks/deliveries/{id}/replay',
      'GET /v1/bank/customers/batches/{batchId}',
    ])
      expect(keys.has(k), k).toBe(true);
  });

  it('matches concrete paths, preferring literal segments, and hides sandbox routes in live', () => {
    expect(matchRoute(ROUTES, 'GET', '/v1/recurring/sch_1')?.params).toEqual({ scheduleId: 'sch_1' });
    expect(matchRoute(ROUTES, 'GET', '/v1/provider/merchant/trust')?.route.handler).toBe('api/provider/get-trust');
    expect(matchRoute(ROUTES, 'GET', '/v1/recurring/')).toBeUndefined();
    expect(matchRoute(routesFor('live'), 'GET', '/v1/sandbox/customers')).toBeUndefined();
    expect(matchRoute(routesFor('sandbox'), 'GET', '/v1/sandbox/customers')).toBeDefined();
  });
});
