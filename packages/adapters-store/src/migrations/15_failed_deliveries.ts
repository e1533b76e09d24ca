/**
 * The outgoing events given up on, per environment and partner: what the operator's failing
 * deliveries count (`BacklogRepo.failingDeliveries`) without reading the delivered ones.
 */
import { statements } from "./statements.ts"

export const failedDeliveries = statements([
  `CREATE INDEX webhook_events_failed ON webhook_events (environment, partner_id, created_at DESC, id DESC)
    WHERE direction = 'outgoing' AND status = 'failed'`
])
