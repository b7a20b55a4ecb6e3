/** Amounts in NGN with two decimals; dates in the viewer's time zone, settlement dates in Lagos time. */
const ngn = new Intl.NumberFormat('en-NG', { style: 'currency', currency: 'NGN', minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** `amount` in major units (the API's amounts are naira with at most 2 decimals). */
export const money = (amount: number | string | null | undefined) =>
  amount === null || amount === undefined || amount === '' ? '—' : ngn.format(Number(amount));

const local = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const lagos = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'Africa/Lagos' });
const lagosDay = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeZone: 'Africa/Lagos' });

export const when = (iso: string | null | undefined) => (iso ? local.format(new Date(iso)) : '—');
/** A settlement time: the viewer's time, with Lagos time beside it. */
export const settlementWhen = (iso: string | null | undefined) =>
  iso ? `${local.format(new Date(iso))} (Lagos ${lagos.format(new Date(iso))})` : '—';
/** A business date (YYYY-MM-DD, a Lagos day) as written in Lagos. */
export const lagosDate = (ymd: string | null | undefined) => (ymd ? `${lagosDay.format(new Date(`${ymd}T12:00:00+01:00`))} (Lagos)` : '—');
