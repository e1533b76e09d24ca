/**
 * IP addresses as bytes, so ranges and embedded IPv4 addresses can be read bit by bit (node's
 * `BlockList` can match ranges but cannot tell what an IPv6 address carries).
 */

const parseV4 = (text: string): Uint8Array | undefined => {
  const parts = text.split(".")
  if (parts.length !== 4 || !parts.every((part) => /^(0|[1-9][0-9]{0,2})$/.test(part) && Number(part) <= 255)) {
    return undefined
  }
  return Uint8Array.from(parts, Number)
}

const parseV6 = (text: string): Uint8Array | undefined => {
  const halves = text.split("::")
  if (halves.length > 2) return undefined
  const groups = halves.map((half) => (half === "" ? [] : half.split(":")))
  // a dotted IPv4 tail (`::ffff:1.2.3.4`) stands for the last two groups
  const last = groups[groups.length - 1]!
  const tail = last[last.length - 1]
  if (tail?.includes(".")) {
    const v4 = parseV4(tail)
    if (v4 === undefined) return undefined
    last.splice(-1, 1, ((v4[0]! << 8) | v4[1]!).toString(16), ((v4[2]! << 8) | v4[3]!).toString(16))
  }
  const given = groups.flat()
  if (!given.every((group) => /^[0-9a-f]{1,4}$/i.test(group))) return undefined
  if (halves.length === 1 ? given.length !== 8 : given.length > 7) return undefined
  const words = [...groups[0]!, ...Array<string>(8 - given.length).fill("0"), ...(groups[1] ?? [])]
  return Uint8Array.from(words.flatMap((word) => [Number.parseInt(word, 16) >> 8, Number.parseInt(word, 16) & 0xff]))
}

/** The 4 (IPv4) or 16 (IPv6) bytes of an address written as text, or undefined if it is not one. An IPv6 zone (`%eth0`) is ignored. */
export const parse = (text: string): Uint8Array | undefined =>
  text.includes(":") ? parseV6(text.replace(/%.*$/, "")) : parseV4(text)

export const formatV4 = (bytes: Uint8Array): string => bytes.join(".")

/** A network written as `address/prefix length`. */
export interface Cidr {
  readonly text: string
  readonly bytes: Uint8Array
  readonly bits: number
}

export const cidr = (text: string): Cidr => {
  const [address = "", bits = ""] = text.split("/")
  const bytes = parse(address)
  if (bytes === undefined || !/^[0-9]+$/.test(bits) || Number(bits) > bytes.length * 8) {
    throw new Error(`not a network: ${text}`)
  }
  return { text, bytes, bits: Number(bits) }
}

/** Whether `address` (bytes from {@link parse}) lies in `network`; an IPv4 address never lies in an IPv6 network. */
export const within = (address: Uint8Array, network: Cidr): boolean => {
  if (address.length !== network.bytes.length) return false
  for (let bit = 0; bit < network.bits; bit += 8) {
    const mask = (0xff << Math.max(0, 8 - (network.bits - bit))) & 0xff
    if (((address[bit / 8]! ^ network.bytes[bit / 8]!) & mask) !== 0) return false
  }
  return true
}
