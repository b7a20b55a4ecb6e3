/**
 * Simulated banks (sandbox only): seeding and the list of them.
 *
 *   SANDBOX#BANKS / BANK#<createdAt>#<bankId>   one item per seeded simulated bank: its name
 *                                               and its magic customers' ids and device ids
 *
 * The bank itself is an ordinary participant with `simulated: true` (created by the
 * operator). Seeding onboards the magic customers through the SAME batch code path as
 * POST /v1/bank/customers (`createCustomerBatch`) and links one device per customer through
 * the same device-link code (`linkDevice`). It is idempotent: run again for the same bank, the
 * customers are duplicates (found by their clientRef guards) and the links are kept.
 */
import { config } from '../config';
import { logger } from '../platform/log';
import { clientRefGuardKey, createCustomerBatch, linkDevice } from '../customers/store';
import type { Participant } from '../identity/participant-store';
import { getItem, nowIso, putItem, queryAll } from '../platform/table';
import { bankScopedDeviceId, MAGIC_CUSTOMERS, magicDeviceId, seedRecords, SIMULATED_DEVICE_PHRASE } from './magic';

export const SIMULATED_BANKS_PK = 'SANDBOX#BANKS';

export interface SimulatedBankCustomer {
  outcome: string;
  customerId: string;
  deviceId: string;
}

export interface SimulatedBankItem {
  pk: typeof SIMULATED_BANKS_PK;
  sk: string;
  bankId: string;
  bankName: string;
  createdAt: string;
  seededAt: string;
  customers: SimulatedBankCustomer[];
  [extra: string]: unknown;
}

export class SandboxOnlyError extends Error {
  constructor(what: string) {
    super(`${what} exists only in the sandbox stage`);
    this.name = 'SandboxOnlyError';
  }
}

/** Onboard the magic customers of a simulated bank, link their devices, and list the bank. */
export async function seedSimulatedBank(
  bank: Pick<Participant, 'id' | 'name' | 'createdAt' | 'type' | 'simulated'>,
): Promise<SimulatedBankItem> {
  if (config.stage() !== 'sandbox') throw new SandboxOnlyError('A simulated bank');
  if (bank.type !== 'bank' || bank.simulated !== true) throw new Error('seedSimulatedBank: not a simulated bank');
  const records = seedRecords();
  const batch = await createCustomerBatch(bank.id, records);
  const ids: string[] =
    batch.data.createdCount === records.length
      ? batch.data.customerIds
      : // Seeded before (a retry): every record is a duplicate of an existing customer; its guard names it.
        await Promise.all(
          records.map(async (r) => {
            const guard = await getItem<{ customerId: string }>(clientRefGuardKey(bank.id, String(r.clientRef)));
            if (!guard) throw new Error('seedSimulatedBank: a magic customer was neither created nor found');
            return guard.customerId;
          }),
        );

  const customers = await Promise.all(
    MAGIC_CUSTOMERS.map(async (m, i): Promise<SimulatedBankCustomer> => {
      const customer = { id: ids[i]!, bankId: bank.id };
      let deviceId = magicDeviceId(m);
      let link = await linkDevice(customer, deviceId, SIMULATED_DEVICE_PHRASE);
      if (!link.ok) {
        // The exact id belongs to an older simulated bank (a device is one customer): use this bank's own.
        deviceId = bankScopedDeviceId(m, bank.id);
        link = await linkDevice(customer, deviceId, SIMULATED_DEVICE_PHRASE);
        if (!link.ok) throw new Error('seedSimulatedBank: device link refused');
      }
      return { outcome: m.outcome, customerId: customer.id, deviceId };
    }),
  );

  const item: SimulatedBankItem = {
    pk: SIMULATED_BANKS_PK,
    sk: `BANK#${bank.createdAt}#${bank.id}`,
    bankId: bank.id,
    bankName: bank.name,
    createdAt: bank.createdAt,
    seededAt: nowIso(),
    customers,
  };
  await putItem(item);
  logger.info('simulated bank seeded', { bankId: bank.id, customers: customers.length, batchId: batch.batchId });
  return item;
}

/** Every seeded simulated bank, oldest first. */
export function listSimulatedBanks(): Promise<SimulatedBankItem[]> {
  return queryAll<SimulatedBankItem>({
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': SIMULATED_BANKS_PK },
    ConsistentRead: true,
  });
}
