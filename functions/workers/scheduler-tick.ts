import { runTick } from '../platform/due';
import { observedWorker } from '../platform/invocation';
import { logger } from '../platform/log';
import { metric } from '../platform/metrics';

/** EventBridge Scheduler target (rate 1 minute): input `{"scheduledTime": "<aws.scheduler.scheduled-time>"}`. */
export const handler = observedWorker(async (event: { scheduledTime?: string }) => {
  const at = event?.scheduledTime ? new Date(event.scheduledTime) : new Date();
  if (Number.isNaN(at.getTime())) throw new Error('scheduledTime is not a date');
  // Tick lag (lib/alarms.ts TICK_LAG_METRIC): how late this tick starts after its scheduled time.
  metric('TickLagSeconds', Math.max(0, (Date.now() - at.getTime()) / 1000));
  const result = await runTick(at);
  if (result.found > 0 || result.fannedOut > 0) logger.info('tick', { scheduledTime: at.toISOString(), ...result });
  return result;
});
