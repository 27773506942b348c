import pg from "pg";

export interface InvoiceRow {
  id: string;
  customerId: string;
  amountPaid: number; // cents
  currency: string;
  paidAt: Date;
}

export function createPool(url = process.env.DATABASE_URL): pg.Pool {
  if (!url) throw new Error("DATABASE_URL is not set");
  return new pg.Pool({ connectionString: url, max: 4 });
}

export async function upsertInvoice(pool: pg.Pool, inv: InvoiceRow): Promise<void> {
  await pool.query(
    `INSERT INTO invoices (id, customer_id, amount_paid, currency, paid_at)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (id) DO UPDATE
       SET amount_paid = EXCLUDED.amount_paid, paid_at = EXCLUDED.paid_at`,
    [inv.id, inv.customerId, inv.amountPaid, inv.currency, inv.paidAt],
  );
}

export async function lastSyncedAt(pool: pg.Pool): Promise<Date | null> {
  const res = await pool.query<{ max: Date | null }>("SELECT max(paid_at) AS max FROM invoices");
  return res.rows[0]?.max ?? null;
}
