/** What most migrations are: statements run one by one (the extended protocol takes one statement per query). */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export const statements = (list: ReadonlyArray<string>): Effect.Effect<void, unknown, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.forEach(list, (statement) => sql.unsafe(statement), { discard: true })
  )
