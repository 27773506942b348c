import type pg from "pg";
import type Stripe from "stripe";
import { lastSyncedAt, upsertInvoice } from "./db.js";
import { paidInvoicesSince } from "./stripe.js";

export interface SyncResult {
  upserted: number;
  since: Date | null;
}

export async function syncOnce(pool: pg.Pool, stripe: Stripe): Promise<SyncResult> {
  const since = await lastSyncedAt(pool);
  let upserted = 0;
  for await (const row of paidInvoicesSince(stripe, since)) {
    await upsertInvoice(pool, row);
    upserted++;
  }
  return { upserted, since };
}
