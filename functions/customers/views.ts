/**
 * Customers' reads and keys (the read side of the slice: no zod, no batch rules, so a read
 * path — billing reads, the simulated bank — bundles only this). Writes: ./store.ts.
 */
import { normalizeEmail } from '../domain/email';
import { batchGet, getItem, type Item } from '../platform/table';

export const customerKey = (customerId: string) => ({ pk: `CUS#${customerId}`, sk: 'PROFILE' });
export const clientRefGuardKey = (bankId: string, clientRef: string) => ({ pk: `UNIQ#CREF#${bankId}#${clientRef}`, sk: 'UNIQ' });
export const referenceGuardKey = (bankId: string, reference: string) => ({ pk: `UNIQ#REF#${bankId}#${reference}`, sk: 'UNIQ' });
export const emailIndexPk = (email: string) => `EMAIL#${normalizeEmail(email)}`;
export const bankCustomersPk = (bankId: string) => `BANK#${bankId}#CUSTOMERS`;
export const batchPk = (batchId: string) => `BATCH#${batchId}`;
export const batchKey = (batchId: string) => ({ pk: batchPk(batchId), sk: 'BATCH' });
export const deviceKey = (deviceId: string) => ({ pk: `DEVICE#${deviceId}`, sk: 'DEVICE' });

/** A stored customer. Personal data: names, email, account data, address, gender, phone. */
export interface CustomerRecord {
  pk: string;
  sk: 'PROFILE';
  type: 'customer';
  id: string;
  bankId: string;
  batchId: string;
  clientRef: string;
  reference: string;
  firstname: string;
  middlename?: string;
  lastname: string;
  accountName?: string;
  email: string;
  country: string;
  accountNumber: string;
  address?: string;
  gender?: string;
  phone?: string;
  createdAt: string;
  gsi1pk: string;
  gsi1sk: string;
  gsi2pk: string;
  gsi2sk: string;
}

export const getCustomer = (customerId: string) => getItem<CustomerRecord & Item>(customerKey(customerId));

/** The customer when it exists AND belongs to the bank; otherwise undefined (404 for the caller). */
export async function getBankCustomer(bankId: string, customerId: string): Promise<CustomerRecord | undefined> {
  const c = await getCustomer(customerId);
  return c && c.type === 'customer' && c.bankId === bankId ? c : undefined;
}

/** Who a customer is beside its id in a list (DESIGN 9.7): its name and e-mail. */
export interface CustomerName {
  name: string;
  email: string;
}

/** The names and e-mails of a page's customers: one BatchGetItem (per 100), only those fields read. */
export async function customerNames(customerIds: readonly string[]): Promise<Map<string, CustomerName>> {
  if (customerIds.length === 0) return new Map();
  const found = await batchGet<CustomerRecord & Item>([...new Set(customerIds)].map(customerKey), ['id', 'firstname', 'lastname', 'email']);
  return new Map([...found.values()].map((c) => [c.id, { name: `${c.firstname} ${c.lastname}`.trim(), email: c.email }]));
}
