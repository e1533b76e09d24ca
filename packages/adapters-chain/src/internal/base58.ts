/**
 * Base58 (the Bitcoin alphabet Solana uses for addresses and signatures). Small and slow on
 * purpose: it encodes a few 32- and 64-byte values per simulated transaction.
 */
const alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

export const encode = (bytes: Uint8Array): string => {
  let zeros = 0
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++
  let n = 0n
  for (const byte of bytes) n = (n << 8n) | BigInt(byte)
  let out = ""
  while (n > 0n) {
    out = alphabet[Number(n % 58n)] + out
    n /= 58n
  }
  return "1".repeat(zeros) + out
}

/** The bytes of a base58 string, or `undefined` when it holds a character outside the alphabet. */
export const decode = (text: string): Uint8Array | undefined => {
  let zeros = 0
  while (zeros < text.length && text[zeros] === "1") zeros++
  let n = 0n
  for (const char of text) {
    const digit = alphabet.indexOf(char)
    if (digit < 0) return undefined
    n = n * 58n + BigInt(digit)
  }
  const rest: Array<number> = []
  while (n > 0n) {
    rest.unshift(Number(n & 0xffn))
    n >>= 8n
  }
  return Uint8Array.from([...new Array<number>(zeros).fill(0), ...rest])
}
