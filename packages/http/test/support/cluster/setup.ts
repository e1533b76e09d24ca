/**
 * One multi-process run's surroundings, set up and always torn down: a fresh database, a webhook
 * receiver, a partner created with the CLI whose sandbox webhook points at it, and the cluster
 * the run starts its processes in. Teardown kills every process, closes the receiver and drops
 * the database, whatever happened.
 */
import { type Receiver, start as startReceiver } from "@ratelock/test-support/WebhookReceiver"
import { Cluster, createPartner, type PartnerCredentials } from "../processes.ts"
import { type Database, freshDatabase } from "./database.ts"

export interface Setup {
  readonly db: Database
  readonly receiver: Receiver
  readonly cluster: Cluster
  readonly partner: PartnerCredentials
}

export const withCluster = async <A>(
  serverUrl: string,
  options: { readonly prefix: string; readonly env?: Record<string, string> },
  body: (setup: Setup) => Promise<A>
): Promise<A> => {
  const db = await freshDatabase(serverUrl, options.prefix)
  const cluster = new Cluster(db.url, options.env)
  let receiver: Receiver | undefined
  try {
    receiver = await startReceiver()
    const partner = await createPartner(db.url, receiver.url)
    receiver.setSecret(partner.webhookSecret)
    return await body({ db, receiver, cluster, partner })
  } finally {
    await cluster.stop().catch(() => undefined)
    await receiver?.close().catch(() => undefined)
    await db.drop()
  }
}
