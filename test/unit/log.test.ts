import { afterEach, describe, expect, it, vi } from 'vitest';
import { logger, setLogRequestId, withLogContext } from '../../functions/platform/log';
import { sleep } from '../../functions/platform/retry';

afterEach(() => {
  vi.restoreAllMocks();
  process.env.LOG_LEVEL = 'SILENT';
});

describe('structured logs', () => {
  it('writes one JSON line with level, timestamp, service, message and attributes', () => {
    process.env.LOG_LEVEL = 'INFO';
    const out = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    logger.info('request', { requestId: 'r1', status: 200, skipped: undefined });
    expect(out).toHaveBeenCalledTimes(1);
    const entry = JSON.parse(out.mock.calls[0]![0] as string);
    expect(entry).toMatchObject({ level: 'INFO', service: 'idpay', message: 'request', requestId: 'r1', status: 200 });
    expect(entry).not.toHaveProperty('skipped');
    expect(Number.isNaN(Date.parse(entry.timestamp))).toBe(false);
  });

  it('serializes errors and honours the level', () => {
    process.env.LOG_LEVEL = 'WARN';
    const err = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const out = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    logger.info('hidden');
    logger.error('boom', { error: new TypeError('bad') });
    expect(out).not.toHaveBeenCalled();
    const entry = JSON.parse(err.mock.calls[0]![0] as string);
    expect(entry.error).toMatchObject({ name: 'TypeError', message: 'bad' });
    expect(entry.error.stack).toContain('TypeError');
  });

  it('adds the request id of the async context it runs in to every line, concurrent contexts apart', async () => {
    process.env.LOG_LEVEL = 'INFO';
    const out = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    const serve = (id: string) =>
      withLogContext(async () => {
        setLogRequestId(id);
        await sleep(5);
        logger.info('inside', { step: 1 });
        await sleep(1);
        logger.info('inside', { step: 2 });
      });
    await Promise.all([serve('req-a'), serve('req-b'), serve('req-c')]);
    const entries = out.mock.calls.map((c) => JSON.parse(c[0] as string));
    expect(entries).toHaveLength(6);
    for (const id of ['req-a', 'req-b', 'req-c'])
      expect(
        entries
          .filter((e) => e.requestId === id)
          .map((e) => e.step)
          .sort(),
      ).toEqual([1, 2]);
    logger.info('outside');
    expect(JSON.parse(out.mock.calls.at(-1)![0] as string).requestId).toBeUndefined();
  });
});
