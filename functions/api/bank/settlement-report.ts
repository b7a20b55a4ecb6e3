import * as z from 'zod';
import { endpoint, ok } from '../../http/endpoint';
import { queryDay } from '../../http/schemas';
import { bankSettlementReport } from '../../ledger/reports';
import { MONEY_MSG } from '../../transactions/messages';

const query = z.strictObject({
  businessDate: queryDay,
});

/**
 * GET /v1/bank/settlement-reports?businessDate=YYYY-MM-DD (bank): what the bank's customers
 * paid on that Lagos day (billings that succeeded that day: `debits`, `transactionCount`)
 * and what came back to them (refunds completed that day: `credits`), per merchant
 * (`amount` = payments − refunds). Bad or missing date: 400 `Invalid query parameters`.
 */
export const handler = endpoint(
  { query, description: "The bank's settlement report for one business day." },
  async ({ query, principal }) => {
    return ok(200, MONEY_MSG.settlementReportRetrieved, await bankSettlementReport(principal.id, query.businessDate));
  },
);
