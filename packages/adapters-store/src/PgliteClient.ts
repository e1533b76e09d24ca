/**
 * Embedded Postgres: PGlite in this process, behind `@effect/sql-pg`'s client, so the very same
 * SQL and migrations serve the embedded store and a real server.
 *
 * `@effect/sql-pg` speaks the wire protocol over any Duplex; this one splits the byte stream into
 * protocol messages and hands each to PGlite. PGlite is single-session, so the client keeps one
 * connection (`@electric-sql/pglite-socket` with a pool > 1 fails with `portal "" does not exist`).
 */
import { PGlite } from "@electric-sql/pglite"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Predicate } from "effect"
import { Duplex } from "node:stream"

/** SSLRequest and GSSENCRequest codes: refused with `N`, PGlite needs no encryption. */
const encryptionRequests = new Set([80877103, 80877104])

const protocolStream = (db: PGlite) => (): Duplex => {
  let buffer = Buffer.alloc(0)
  let queue: Promise<void> = Promise.resolve()
  const duplex: Duplex = new Duplex({
    read() {},
    write(chunk: Buffer, _encoding, callback) {
      buffer = Buffer.concat([buffer, chunk])
      for (;;) {
        if (buffer.length < 5) break
        let length: number
        if (buffer[0] === 0) {
          // untyped startup-phase packet: StartupMessage, SSLRequest or GSSENCRequest
          if (buffer.length < 8) break
          length = buffer.readInt32BE(0)
          if (encryptionRequests.has(buffer.readInt32BE(4))) {
            buffer = buffer.subarray(8)
            duplex.push(Buffer.from("N"))
            continue
          }
        } else {
          length = 1 + buffer.readInt32BE(1)
        }
        if (buffer.length < length) break
        const message = new Uint8Array(buffer.subarray(0, length))
        buffer = buffer.subarray(length)
        queue = queue
          .then(() =>
            db.runExclusive(() =>
              db.execProtocolRawStream(message, { onRawData: (data) => void duplex.push(Buffer.from(data)) })
            )
          )
          .catch((error: unknown) => void duplex.destroy(Predicate.isError(error) ? error : new Error(String(error))))
      }
      callback()
    },
    final(callback) {
      queue.then(() => callback(), callback)
    }
  })
  return duplex
}

/** Where an embedded database lives, and what it starts from. */
export interface Options {
  /** The data directory; in memory when omitted. */
  readonly dataDir?: string | undefined
  /**
   * A dump of a data directory (`PGlite.dumpDataDir`) that a new database starts from instead of
   * being initialised (PGlite refuses it for a directory that already holds one). Initialising costs
   * seconds of CPU, loading a dump a fraction of that: the tests start hundreds of databases from one.
   */
  readonly loadDataDir?: Blob | undefined
}

/**
 * A `PgClient` on an embedded PGlite database kept in `dataDir` (in memory when omitted). The
 * database is opened when the layer is built and closed when it is released.
 */
export const layer = (options: Options = {}) =>
  Layer.unwrap(
    Effect.gen(function* () {
      const db = yield* Effect.acquireRelease(
        Effect.promise(() =>
          PGlite.create({
            ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
            ...(options.loadDataDir === undefined ? {} : { loadDataDir: options.loadDataDir })
          })
        ),
        (db) => Effect.promise(() => db.close())
      )
      return PgClient.layer({
        stream: protocolStream(db),
        maxConnections: 1,
        username: "postgres",
        database: "postgres"
      })
    })
  )
