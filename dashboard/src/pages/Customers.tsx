import { useState } from 'react';
import { unwrap } from '../api';
import { useSession } from '../session';
import { Field, Form, Page } from '../ui';
import { FindCustomer } from './Consents';

/** A bank adds its customers (one at a time here; in bulk with the API), and sees each outcome. */
export function CustomersPage() {
  const s = useSession();
  const [outcome, setOutcome] = useState<string>();
  return (
    <Page title="Customers">
      <p>Customers you add can be found by merchants through their e-mail or device, and billed with their consent.</p>
      {s.can('POST', '/v1/bank/customers') ? (
        <Form
          label="Add a customer"
          submit="Add customer"
          onSubmit={async (f) => {
            const v = (k: string) => String(f.get(k) ?? '').trim();
            const r = await unwrap(
              s.client.POST('/v1/bank/customers', {
                body: {
                  customers: [
                    {
                      clientRef: v('clientRef'),
                      firstname: v('firstname'),
                      lastname: v('lastname'),
                      email: v('email'),
                      country: v('country'),
                      accountNumber: v('accountNumber'),
                      reference: v('reference'),
                    },
                  ],
                },
              }),
            );
            const sum = (r as { summary: { successful: number; duplicates: number; invalidData: number } }).summary;
            setOutcome(
              sum.successful === 1
                ? 'Customer added.'
                : sum.duplicates
                  ? 'That customer already exists.'
                  : 'The customer was not added: check the details.',
            );
          }}
        >
          <Field label="Your customer reference" name="clientRef" required />
          <Field label="First name" name="firstname" required />
          <Field label="Last name" name="lastname" required />
          <Field label="Customer email" name="email" type="email" required />
          <Field label="Country code" name="country" required defaultValue="NG" />
          <Field label="Account number" name="accountNumber" required hint="6 to 20 digits" />
          <Field label="Account reference" name="reference" required />
        </Form>
      ) : (
        <p>Your role cannot add customers.</p>
      )}
      {outcome && (
        <p role="status" className="notice">
          {outcome}
        </p>
      )}
      {s.can('GET', '/v1/bank/customers/{customerId}/consents') && <FindCustomer />}
    </Page>
  );
}
