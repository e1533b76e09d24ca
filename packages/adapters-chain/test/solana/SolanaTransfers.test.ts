/**
 * Reading token movements out of a transaction as the RPC returns it: inner instructions (a
 * payment routed through another program) and accounts loaded from lookup tables, which litesvm's
 * bundled programs cannot produce.
 */
import { assert, describe, it } from "@effect/vitest"
import { TOKEN_PROGRAM_ID } from "@solana/spl-token"
import { Keypair, Message, MessageV0, type VersionedTransactionResponse } from "@solana/web3.js"
import * as Base58 from "../../src/internal/base58.ts"
import * as Transfers from "../../src/internal/solana/transfers.ts"

const key = () => Keypair.generate().publicKey
const [payer, router, source, mint, deposit, elsewhere, lookupTable] = [key(), key(), key(), key(), key(), key(), key()]
const token = TOKEN_PROGRAM_ID

const transferChecked = (amount: bigint) => {
  const data = new Uint8Array(10)
  data[0] = 12
  new DataView(data.buffer).setBigUint64(1, amount, true)
  data[9] = 6
  return data
}
const transfer = (amount: bigint) =>
  transferChecked(amount)
    .subarray(0, 9)
    .map((b, i) => (i === 0 ? 3 : b))

const response = (
  message: Message | MessageV0,
  meta: Partial<NonNullable<VersionedTransactionResponse["meta"]>>
): VersionedTransactionResponse => ({
  slot: 7,
  transaction: { message, signatures: ["sig"] },
  meta: { err: null, fee: 5000, preBalances: [], postBalances: [], ...meta },
  version: message.version
})

describe("token movements of a transaction", () => {
  // keys: 0 payer, 1 router program, 2 source, 3 mint, 4 deposit, 5 elsewhere, 6 token program
  const keys = [payer, router, source, mint, deposit, elsewhere, token]
  const legacy = new Message({
    header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 3 },
    accountKeys: keys.map((k) => k.toBase58()),
    recentBlockhash: key().toBase58(),
    instructions: [
      { programIdIndex: 1, accounts: [2, 3, 4, 0], data: Base58.encode(Uint8Array.of(1)) },
      { programIdIndex: 6, accounts: [2, 4, 0], data: Base58.encode(transfer(5n)) }
    ]
  })
  const inner = [
    {
      index: 0,
      instructions: [
        { programIdIndex: 6, accounts: [2, 3, 5, 0], data: Base58.encode(transferChecked(1n)) },
        { programIdIndex: 6, accounts: [2, 3, 4, 0], data: Base58.encode(transferChecked(2_500_000n)) }
      ]
    }
  ]

  it("finds inner and outer transfers into the watched accounts, indexed outer × 1000 + inner position", () => {
    const found = Transfers.movementsInto(response(legacy, { innerInstructions: inner }), new Set([deposit.toBase58()]))
    assert.deepStrictEqual(found, [
      { index: 2, destination: deposit.toBase58(), mint: mint.toBase58(), amount: 2_500_000n },
      { index: 1000, destination: deposit.toBase58(), mint: undefined, amount: 5n }
    ])
    const both = Transfers.movementsInto(
      response(legacy, { innerInstructions: inner }),
      new Set([deposit.toBase58(), elsewhere.toBase58()])
    )
    assert.deepStrictEqual(
      both.map((m) => [m.index, m.destination]),
      [
        [1, elsewhere.toBase58()],
        [2, deposit.toBase58()],
        [1000, deposit.toBase58()]
      ]
    )
  })

  it("a failed transaction moved nothing", () => {
    const failed = response(legacy, { innerInstructions: inner, err: { InstructionError: [1, { Custom: 1 }] } })
    assert.deepStrictEqual(Transfers.movementsInto(failed, new Set([deposit.toBase58()])), [])
  })

  it("resolves accounts loaded from a lookup table (after the static keys: writable, then readonly)", () => {
    // static: 0 payer, 1 source, 2 mint, 3 token program; loaded writable: 4 deposit; readonly: 5 elsewhere
    const v0 = new MessageV0({
      header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 2 },
      staticAccountKeys: [payer, source, mint, token],
      recentBlockhash: key().toBase58(),
      compiledInstructions: [{ programIdIndex: 3, accountKeyIndexes: [1, 2, 4, 0], data: transferChecked(42n) }],
      addressTableLookups: [{ accountKey: lookupTable, writableIndexes: [0], readonlyIndexes: [1] }]
    })
    const found = Transfers.movementsInto(
      response(v0, { loadedAddresses: { writable: [deposit], readonly: [elsewhere] } }),
      new Set([deposit.toBase58()])
    )
    assert.deepStrictEqual(found, [{ index: 0, destination: deposit.toBase58(), mint: mint.toBase58(), amount: 42n }])
  })
})
