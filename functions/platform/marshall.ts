import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';

/** Items returned inside SDK exceptions (ReturnValuesOnConditionCheckFailure) are not unmarshalled by lib-dynamodb. */
export function unmarshallItem(item: Record<string, AttributeValue>): Record<string, unknown> {
  return unmarshall(item);
}
