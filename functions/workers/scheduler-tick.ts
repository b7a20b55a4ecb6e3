import { runTick } from '../platform/due';
import { logger } from '../platform/log';

/** EventBridge Scheduler target (rate 1 minute): input `{"scheduledTime": "<aws.scheduler.scheduled-time>"}`. */
export async function handler(event: { scheduledTime?: string }) {
  const at = event?.scheduledTime ? new Date(event.scheduledTime) : new Date();
  if (Number.isNaN(at.getTime())) throw new Error('scheduledTime is not a date');
  const result = await runTick(at);
  if (result.found > 0) logger.info('tick', { scheduledTime: at.toISOString(), ...result });
  return result;
}
