import * as z from 'zod';
import { iso } from '../shapes';

const isoOrNull = iso.nullable();

/** account/list-keys: `data` of the 2xx answer (read by the OpenAPI generator, not by the handler). */
export const data = z.object({
  keys: z.array(
    z.object({
      keyId: z.string(),
      name: z.string().nullable(),
      prefix: z.string().nullable().describe('The first characters of the key, to recognise it (e.g. `sk_live_Ab3x`)'),
      createdAt: iso,
      lastUsedAt: isoOrNull,
      expiresAt: isoOrNull,
      revokedAt: isoOrNull,
    }),
  ),
  hasMore: z.boolean(),
});
