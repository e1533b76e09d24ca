/**
 * The sandbox's webhook inbox (`WebhookInbox` in core): deliveries to the service's own receiver,
 * the newest 100 per partner kept.
 */
import { statements } from "./statements.ts"

export const sandboxWebhookInbox = statements([
  `CREATE TABLE sandbox_webhook_inbox (
    id uuid PRIMARY KEY,
    partner_id uuid NOT NULL REFERENCES partners (id),
    received_at timestamptz(3) NOT NULL,
    headers json NOT NULL,
    body text NOT NULL,
    signature_problem text
  )`,
  `CREATE INDEX sandbox_webhook_inbox_newest ON sandbox_webhook_inbox (partner_id, received_at DESC, id DESC)`
])
