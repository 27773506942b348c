import Stripe from "stripe";
import type { InvoiceRow } from "./db.js";

export function createClient(key = process.env.STRIPE_SECRET_KEY): Stripe {
  if (!key) throw new Error("STRIPE_SECRET_KEY is not set");
  return new Stripe(key, { apiVersion: "2023-10-16" });
}

export async function* paidInvoicesSince(stripe: Stripe, since: Date | null): AsyncGenerator<InvoiceRow> {
  const created = since ? { gt: Math.floor(since.getTime() / 1000) } : undefined;
  for await (const inv of stripe.invoices.list({ status: "paid", created, limit: 100 })) {
    yield {
      id: inv.id,
      customerId: typeof inv.customer === "string" ? inv.customer : inv.customer?.id ?? "",
      amountPaid: inv.amount_paid,
      currency: inv.currency,
      paidAt: new Date((inv.status_transitions.paid_at ?? inv.created) * 1000),
    };
  }
}
