/**
 * EVM funding addresses by BIP-32/44: `m/44'/60'/<account>'/0/<index>`, account 0 for production
 * and 1 for sandbox, so the two environments never share an address even from one mnemonic.
 *
 * The external-chain node `m/44'/60'/<account>'/0` is derived once; each address is then one
 * non-hardened step, which an account-level xpub can take as well (watch-only: the funding keys
 * need not be on the server). Addresses are `0x` + 40 lowercase hex, as the simulated chain's.
 *
 * From a mnemonic the external node keeps its private key: sweeps sign with the funding address's
 * key (`signingKey`). From an xpub there is none: the addresses are watched, never swept.
 */
import type { Partner } from "@ratelock/core"
import { keccak_256 } from "@noble/hashes/sha3.js"
import { secp256k1 } from "@noble/curves/secp256k1.js"
import { HARDENED_OFFSET, HDKey } from "@scure/bip32"
import { mnemonicToSeedSync, validateMnemonic } from "@scure/bip39"
import { wordlist } from "@scure/bip39/wordlists/english.js"

export const accountOf = (environment: Partner.Environment): number => (environment === "production" ? 0 : 1)

/** BIP-32 child indexes of the last step stay below the hardened range. */
export const maxIndex = HARDENED_OFFSET - 1

export type Source =
  | { readonly _tag: "Mnemonic"; readonly mnemonic: string }
  | { readonly _tag: "Xpub"; readonly xpub: string }

/** The `…/0` node of the environment's account, or an error message for a bad key. */
export const externalChain = (source: Source, environment: Partner.Environment): HDKey | string => {
  const account = accountOf(environment)
  try {
    if (source._tag === "Mnemonic") {
      const words = source.mnemonic.trim().split(/\s+/).join(" ")
      if (!validateMnemonic(words, wordlist)) return "the funding mnemonic is not a valid BIP-39 english mnemonic"
      // the seed and the nodes above are dropped: only this node's keys stay, for its children
      return HDKey.fromMasterSeed(mnemonicToSeedSync(words)).derive(`m/44'/60'/${account}'/0`)
    }
    const node = HDKey.fromExtendedKey(source.xpub.trim())
    // an xpub of another level or another account would hand out addresses nobody watches for
    if (node.depth !== 3 || node.index !== HARDENED_OFFSET + account) {
      return `the funding xpub must be the account node m/44'/60'/${account}' for ${environment}`
    }
    return node.deriveChild(0)
  } catch (cause) {
    return `the funding key cannot be read: ${cause instanceof Error ? cause.message : String(cause)}`
  }
}

/** The address of `node`'s child `index` (0 ≤ index ≤ `maxIndex`, checked by the caller). */
export const address = (node: HDKey, index: number): string => {
  const child = node.deriveChild(index)
  // Ethereum's address is the last 20 bytes of keccak-256 of the uncompressed point, without its 0x04 prefix
  const point = secp256k1.Point.fromBytes(child.publicKey!).toBytes(false)
  const hash = keccak_256(point.subarray(1))
  return `0x${Buffer.from(hash.subarray(12)).toString("hex")}`
}

/** The private key of `node`'s child `index`, or null when `node` is watch-only (from an xpub). */
export const signingKey = (node: HDKey, index: number): `0x${string}` | null => {
  if (node.privateKey === null) return null
  const key = node.deriveChild(index).privateKey
  return key === null ? null : `0x${Buffer.from(key).toString("hex")}`
}

/** Whether sweeps can be signed from `node`. */
export const holdsKeys = (node: HDKey): boolean => node.privateKey !== null
