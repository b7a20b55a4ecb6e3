/**
 * Entry point of the event stream consumer (Lambda event source on the table's DynamoDB
 * Stream, EVENT_STREAM in functions/platform/definitions.ts; locally local/streams.ts). The
 * consumer itself is the events slice's: functions/events/fanout.ts.
 */
import { fanOut } from '../events/fanout';
import { observedWorker } from '../platform/invocation';

export const handler = observedWorker(fanOut);
