import * as z from 'zod';
import { endpoint, ok } from '../../http/endpoint';
import { safeText } from '../../http/schemas';
import { createTestClock, testClockView } from '../../sandbox/test-clock-store';

/** A clock's time: an instant between 2000 and 2100 (normalised to UTC). */
export const clockTime = z.iso
  .datetime({ offset: true })
  .transform((v) => new Date(v).toISOString())
  .refine((v) => v >= '2000-01-01T00:00:00.000Z' && v < '2100-01-01T00:00:00.000Z', 'must be between 2000 and 2100');

const bodySchema = z.strictObject({ frozenTime: clockTime, name: safeText(100).nullable().optional() });

/**
 * POST /v1/sandbox/test-clocks {frozenTime, name?} (merchant, sandbox only; DESIGN 8.7) -> 201
 * `{clockId, frozenTime, status: "ready"}`. Requests with `X-Test-Clock: <clockId>` then run at
 * the clock's time, and what they create follows the clock.
 */
export const handler = endpoint({ body: bodySchema, description: 'Create a test clock' }, async ({ body, principal }) => {
  const c = await createTestClock(principal.id, body.frozenTime, body.name ?? null);
  return ok(201, 'Test clock created', testClockView(c));
});
