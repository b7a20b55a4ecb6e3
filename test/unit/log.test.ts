import { afterEach, describe, expect, it, vi } from 'vitest';
import { logger } from '../../functions/platform/log';

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
});
