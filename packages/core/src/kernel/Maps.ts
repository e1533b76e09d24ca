/** What JavaScript's `Map` lacks and the sums of the book and the P&L need: a value made on first use. */

/** The value under `key`, made with `make` and stored there first if absent. */
export const getOrInsert = <K, V>(map: Map<K, V>, key: K, make: () => V): V => {
  let value = map.get(key)
  if (value === undefined) {
    value = make()
    map.set(key, value)
  }
  return value
}
