/** The 2xx answers of the search/ handlers (read by the OpenAPI generator only). */
import * as z from 'zod';
import { SEARCH_KINDS } from '../../search/views';
import { iso } from '../shapes';
import type { Responses } from '../shapes';

export const RESPONSES = {
  search: {
    data: z.object({
      results: z
        .array(
          z
            .object({
              kind: z.enum(SEARCH_KINDS),
              id: z.string().describe('The id to read it with (a transaction: its reference)'),
              title: z.string().describe('A short human description: amount, names, e-mail, status'),
              createdAt: iso,
            })
            .meta({ id: 'SearchResult' }),
        )
        .max(20)
        .describe('At most 20, newest first; empty when nothing you may read matches'),
      complete: z
        .boolean()
        .describe(
          'False when the search by text (id starts, words, amounts over your last 90 days) stopped at its 2 s before reading them all',
        ),
    }),
  },
} satisfies Responses;
