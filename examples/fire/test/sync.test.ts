import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPool, upsertInvoice } from "../src/db.js";

const pool = createPool(process.env.DATABASE_URL ?? "postgres://sync:sync@127.0.0.1:5432/invoices_test");

beforeAll(async () => {
  await pool.query("TRUNCATE invoices");
});

afterAll(async () => {
  await pool.end();
});

describe("upsertInvoice", () => {
  it("is idempotent for the same invoice id", async () => {
    const row = { id: "in_1OaBcD", customerId: "cus_P1x", amountPaid: 4200, currency: "eur", paidAt: new Date("2026-01-20T10:00:00Z") };
    await upsertInvoice(pool, row);
    await upsertInvoice(pool, row);
    const res = await pool.query("SELECT count(*)::int AS n FROM invoices WHERE id = $1", [row.id]);
    expect(res.rows[0].n).toBe(1);
  });
});
