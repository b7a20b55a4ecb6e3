import { Logger } from '@aws-lambda-powertools/logger';
import { config } from '../config';

/**
 * Structured JSON logs. Only identifiers, statuses and timings are logged: never a key,
 * secret, request body or personal data.
 */
export const logger = new Logger({
  serviceName: 'idpay',
  logLevel: config.logLevel() as 'INFO',
});
