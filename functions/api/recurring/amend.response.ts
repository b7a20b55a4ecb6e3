import * as z from 'zod';

/** recurring/amend: `data` of the 2xx answer (DESIGN 8.6; read by the OpenAPI generator, not by the handler). */
export const data = z.object({
  scheduleId: z.string(),
  amendmentId: z.string(),
  status: z.literal('pending').describe("Waiting for the customer's bank: schedule.amended or schedule.amendment_declined follows"),
});
