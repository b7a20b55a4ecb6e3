/**
 * CSV of the exports (RFC 4180: comma-separated, CRLF line ends, a header row). A text
 * field that a spreadsheet would read as a formula (starting with = + - @ or a tab / CR)
 * is prefixed with a single quote; fields with a comma, quote or line break are quoted.
 * Numbers (amounts in major units) are written as they are.
 */
import { TRANSACTION_FIELDS } from '../transactions/store';

export type Cell = string | number | null | undefined;

const FORMULA = /^[=+\-@\t\r]/;

export function csvCell(v: Cell): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return String(v);
  const text = FORMULA.test(v) ? `'${v}` : v;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export const csvRow = (cells: readonly Cell[]) => `${cells.map(csvCell).join(',')}\r\n`;

export const TRANSACTION_COLUMNS = TRANSACTION_FIELDS;

export const SETTLEMENT_COLUMNS = ['settlementId', 'businessDate', 'reference', 'type', 'amount', 'currency'] as const;
