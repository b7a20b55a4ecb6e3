/**
 * Entry point of the event stream consumer (Lambda event source on the table's DynamoDB
 * Stream, EVENT_STREAM in functions/platform/definitions.ts; locally local/streams.ts). The
 * consumer itself is the events slice's: functions/events/fanout.ts; the events that items
 * carry (events/outbox.ts `carry`) are derived by their features' derivers, given here.
 */
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { fanOut } from '../events/fanout';
import { BILL_EVENT_DERIVERS } from '../billing/bill-item';
import { SETTLEMENT_EVENT_DERIVERS } from '../ledger/settlement-views';
import { observedWorker } from '../platform/invocation';

const DERIVERS = { ...BILL_EVENT_DERIVERS, ...SETTLEMENT_EVENT_DERIVERS };

/** Fan out a batch of stream records (the handler's work; ops' stream:replay runs it too). */
export const consumeStream = (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => fanOut(event, DERIVERS);

export const handler = observedWorker(consumeStream);
