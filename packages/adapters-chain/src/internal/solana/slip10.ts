/**
 * SLIP-10 key derivation for ed25519 (https://github.com/satoshilabs/slips/blob/master/slip-0010.md),
 * the scheme Solana wallets and the Solana CLI use for `m/44'/501'/…` paths. Ed25519 has only
 * hardened children: every index given here is hardened (2³¹ is added to it).
 */
import { ed25519 } from "@noble/curves/ed25519.js"
import { hmac } from "@noble/hashes/hmac.js"
import { sha512 } from "@noble/hashes/sha2.js"

export interface Node {
  /** The 32-byte ed25519 private key (the seed of the keypair, not the expanded key). */
  readonly privateKey: Uint8Array
  readonly chainCode: Uint8Array
}

const hardened = 0x80000000

/** The largest index a hardened step takes (it is added to 2³¹). */
export const maxIndex = hardened - 1

const split = (i: Uint8Array): Node => ({ privateKey: i.slice(0, 32), chainCode: i.slice(32) })

export const master = (seed: Uint8Array): Node => split(hmac(sha512, new TextEncoder().encode("ed25519 seed"), seed))

/** The hardened child `index'` of `parent` (`index` without the 2³¹ offset). */
export const child = (parent: Node, index: number): Node => {
  if (!Number.isInteger(index) || index < 0 || index > maxIndex) throw new RangeError(`bad SLIP-10 index ${index}`)
  const data = new Uint8Array(37)
  data.set(parent.privateKey, 1)
  new DataView(data.buffer).setUint32(33, index + hardened)
  return split(hmac(sha512, parent.chainCode, data))
}

/** The node at a path of hardened indexes below `node`. */
export const derive = (node: Node, path: ReadonlyArray<number>): Node => path.reduce(child, node)

export const publicKey = (node: Node): Uint8Array => ed25519.getPublicKey(node.privateKey)
