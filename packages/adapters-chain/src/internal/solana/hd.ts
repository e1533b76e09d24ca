/**
 * Solana funding addresses by SLIP-10 ed25519: `m/44'/501'/<account>'/<index>'`, account 0 for
 * production and 1 for sandbox, so the two environments never share an address even from one
 * mnemonic. Production index 0 is `m/44'/501'/0'/0'`, the first account of Phantom and of
 * `solana-keygen` for the same mnemonic: an operator can open a deposit address in a wallet.
 *
 * Ed25519 has no public derivation, so the seed must be on the server (no watch-only key). The
 * account node is derived once; each address is then one hardened step and one public key, and
 * the key that signs a sweep of the address the same step's private key.
 */
import type { Partner } from "@ratelock/core"
import { mnemonicToSeedSync, validateMnemonic } from "@scure/bip39"
import { wordlist } from "@scure/bip39/wordlists/english.js"
import { Keypair } from "@solana/web3.js"
import * as Base58 from "../base58.ts"
import * as Slip10 from "./slip10.ts"

export const accountOf = (environment: Partner.Environment): number => (environment === "production" ? 0 : 1)

export const maxIndex = Slip10.maxIndex

/** The account node `m/44'/501'/<account>'`, or an error message for a bad mnemonic. */
export const accountNode = (mnemonic: string, environment: Partner.Environment): Slip10.Node | string => {
  const words = mnemonic.trim().split(/\s+/).join(" ")
  if (!validateMnemonic(words, wordlist)) return "the funding mnemonic is not a valid BIP-39 english mnemonic"
  return Slip10.derive(Slip10.master(mnemonicToSeedSync(words)), [44, 501, accountOf(environment)])
}

/** The owner address of HD index `index` (0 ≤ index ≤ `maxIndex`, checked by the caller). */
export const address = (account: Slip10.Node, index: number): string =>
  Base58.encode(Slip10.publicKey(Slip10.child(account, index)))

/** The keypair of HD index `index` (checked by the caller): what signs for the address's token account. */
export const keypair = (account: Slip10.Node, index: number): Keypair =>
  Keypair.fromSeed(Slip10.child(account, index).privateKey)
