/**
 * THE disputable/refundable rule (DESIGN 6.9 "Refunds", 9.4; docs/decisions/disputes.md): what
 * refunds and disputes may still take from a succeeded transaction is
 *
 *   amount − refunds (pending or completed) − disputes (open or lost)
 *
 * kept as ONE counter on the bill, `refundReserved` (the name predates disputes), because a
 * DynamoDB condition cannot add two attributes: a refund's initiation and a dispute's opening
 * both ADD their amount to it under the same condition (`status = succeeded AND
 * refundReserved <= amount − amt`), so racing refunds and disputes can never claim more than
 * the amount, whatever the interleaving. A failed refund and a won dispute give their amount
 * back; a lost dispute keeps it (the customer's bank has the money).
 */
import { CARRIED_EVENT } from '../platform/definitions';
import { table, type TransactItem } from '../platform/table';
import { billKey, type BillItem } from './types';

/** Minor units refunds and disputes may still take. */
export const claimableOf = (b: Pick<BillItem, 'amount' | 'refundReserved'>) => b.amount - (b.refundReserved ?? 0);

/**
 * The bill update that claims `amount` (one item of the caller's transaction). `owner` pins
 * the transaction to the caller (a merchant refunds its own, a bank disputes its customer's);
 * `extra` adds ADD clauses (numbers, or ids to a string set) and SET clauses (`disputeStatus`, ...) with their values.
 */
export function claimUpdate(
  bill: Pick<BillItem, 'billingRequestId' | 'amount'>,
  amount: number,
  owner: { merchantId: string } | { bankId: string },
  extra?: { adds?: Record<string, number | Set<string>>; sets?: Record<string, unknown> },
): TransactItem {
  const ownerAttr = 'merchantId' in owner ? 'merchantId' : 'bankId';
  const values: Record<string, unknown> = {
    ':amt': amount,
    ':succeeded': 'succeeded',
    ':owner': 'merchantId' in owner ? owner.merchantId : owner.bankId,
    ':maxReserved': bill.amount - amount,
  };
  const names: Record<string, string> = { '#status': 'status', '#owner': ownerAttr };
  const adds = ['refundReserved :amt'];
  const sets: string[] = [];
  Object.entries(extra?.adds ?? {}).forEach(([k, v], i) => {
    names[`#a${i}`] = k;
    values[`:a${i}`] = v;
    adds.push(`#a${i} :a${i}`);
  });
  Object.entries(extra?.sets ?? {}).forEach(([k, v], i) => {
    names[`#s${i}`] = k;
    values[`:s${i}`] = v;
    sets.push(`#s${i} = :s${i}`);
  });
  return {
    Update: {
      TableName: table(),
      Key: billKey(bill.billingRequestId),
      UpdateExpression: `ADD ${adds.join(', ')}${sets.length ? ` SET ${sets.join(', ')}` : ''} REMOVE ${CARRIED_EVENT}`,
      ConditionExpression:
        '#status = :succeeded AND #owner = :owner AND (attribute_not_exists(refundReserved) OR refundReserved <= :maxReserved)',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
}
