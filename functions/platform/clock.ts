/**
 * The clock every timed behaviour reads (DESIGN 8.7): real time, or, inside a test clock's
 * context (sandbox only), that clock's time. The context is set in one of two places: a
 * merchant request with `X-Test-Clock` (http/endpoint.ts: the clock's frozen time) and the
 * test clock's advance worker (sandbox/test-clocks.ts: each due item's time, in due order).
 * Outside them `now()` is `Date.now()`; live never enters a context (the routes and the
 * header are sandbox-only), so no live code path reads a test clock.
 *
 * In a context, what is created is tied to the clock: its due entries go to the clock's own
 * partition of the due index (`CLOCK#<id>`, platform/due.ts) that the real tick never reads,
 * and its events carry `testClock` (events/outbox.ts).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface ClockContext {
  clockId: string;
  /** The clock's time now (ms). */
  nowMs(): number;
}

const store = new AsyncLocalStorage<ClockContext>();

/** The current time: the test clock's in its context, else the real one. */
export const clockNow = (): Date => new Date(store.getStore()?.nowMs() ?? Date.now());

/** The test clock of the current context, if any. */
export const currentTestClock = (): string | undefined => store.getStore()?.clockId;

/** Run `fn` in a test clock's context. */
export const withTestClock = <T>(ctx: ClockContext, fn: () => T): T => store.run(ctx, fn);

/** A context whose time stands still at `atMs`. */
export const frozenAt = (clockId: string, atMs: number): ClockContext => ({ clockId, nowMs: () => atMs });
