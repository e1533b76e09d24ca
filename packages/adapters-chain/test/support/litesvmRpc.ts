/**
 * A Solana JSON-RPC front end over a LiteSVM instance, on 127.0.0.1, so the gateway's unchanged
 * web3.js `Connection` runs against real SVM execution (SPL Token, associated token accounts and
 * memo programs included). It serves exactly the methods the gateway and `Connection` call.
 *
 * What litesvm lacks, the front end keeps:
 * - Slots: every transaction lands in the current head slot; `advance` moves the head. A slot is
 *   `confirmed` once the head is 1 slot past it and `finalized` once it is `finalizedLag` (31)
 *   past it, so a transaction counts 32 confirmations, its own block included, when finalized.
 *   Block height is the slot (no slot is skipped).
 * - History: litesvm keeps none an RPC can query, so each landed transaction (successful, or
 *   failed but fee-charged) is recorded with its slot, error, balances, inner instructions and
 *   logs. Token balances are not recorded (the gateway reads instructions, not balances).
 * - Blockhash expiry: litesvm accepts only its latest blockhash, until told to expire it. Here a
 *   blockhash is valid for 150 blocks after it was first handed out, then replaced: a transaction
 *   signed with it can no longer land, as on a real cluster.
 * - Prioritization fees: read from the landed transactions' own compute-budget instructions (this
 *   file decodes them itself, not with the gateway's code). `getRecentPrioritizationFees` answers
 *   as Agave's cache does, for each of the last 150 slots in which something landed: per slot, the lowest
 *   price paid in it, or, given accounts, the highest of that and each account's lowest price
 *   among the slot's transactions that write it. A landed transaction's fee counts its priority
 *   fee (price × limit / 10^6 lamports, rounded up), as litesvm charges it.
 * - Simulation: `simulateTransaction` runs litesvm's own, honouring `sigVerify: false` (an unsigned
 *   transaction) and reporting the units it consumed.
 *
 * - Account state by commitment: litesvm keeps only the current state, so the front end records
 *   every account as it was before each landed transaction (and airdrop) changed it. Account reads
 *   (`getBalance`, `getAccountInfo`, `getMultipleAccounts`) answer the current state at every
 *   commitment, as they always did, until `readAtCommitment(true)`: then each answers the state
 *   at its commitment's slot, what landed above it undone (reads of many accounts by other means,
 *   `getTokenAccountsByOwner`, stay current).
 * Calls are counted by method (`calls`), so a test can tell how many a gateway operation made.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createInitializeMint2Instruction,
  createMintToInstruction,
  getAssociatedTokenAddressSync,
  MINT_SIZE,
  TOKEN_PROGRAM_ID
} from "@solana/spl-token"
import {
  type Keypair,
  PublicKey,
  SystemProgram,
  Transaction,
  TransactionInstruction,
  VersionedTransaction
} from "@solana/web3.js"
import { FailedTransactionMetadata, LiteSVM, type TransactionMetadata } from "litesvm"
import * as Base58 from "../../src/internal/base58.ts"

const memoProgram = new PublicKey("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr")

const computeBudgetProgram = "ComputeBudget111111111111111111111111111111"

export const finalizedLag = 31
export const confirmedLag = 1
export const blockhashLifetime = 150

type Commitment = "processed" | "confirmed" | "finalized"

/** A method's parameters as `Connection` sends them (well-formed: the front end trusts them). */
type Params = ReadonlyArray<unknown>
interface Config {
  readonly commitment?: Commitment
  readonly minContextSlot?: number
  readonly before?: string
  readonly until?: string
  readonly limit?: number
  readonly skipPreflight?: boolean
  readonly mint?: string
  readonly sigVerify?: boolean
  readonly replaceRecentBlockhash?: boolean
}
const config = (options: unknown): Config => (options ?? {}) as Config

interface Landed {
  readonly signature: string
  readonly slot: number
  readonly blockTime: number
  readonly version: "legacy" | 0
  readonly keys: ReadonlyArray<string>
  readonly message: unknown
  readonly err: unknown
  readonly fee: number
  readonly preBalances: ReadonlyArray<number>
  readonly postBalances: ReadonlyArray<number>
  readonly innerInstructions: ReadonlyArray<unknown>
  readonly logs: ReadonlyArray<string>
  /** Its compute-unit price, in micro-lamports (0 when it sets none). */
  readonly price: number
  /** The accounts it writes. */
  readonly writable: ReadonlySet<string>
}

/** An account in the RPC's JSON form. */
interface AccountJson {
  readonly data: readonly [string, "base64"]
  readonly executable: boolean
  readonly lamports: number
  readonly owner: string
  readonly rentEpoch: number
  readonly space: number
}

export interface Submitted {
  readonly signature: string
  /** The transaction error in RPC JSON form (`null`: it succeeded). */
  readonly err: unknown
  /** It is on chain (succeeded, or failed after paying its fee). */
  readonly landed: boolean
}

class RpcError extends Error {
  readonly code: number
  readonly data: unknown
  constructor(code: number, message: string, data?: unknown) {
    super(message)
    this.code = code
    this.data = data
  }
}

// litesvm's error enums, by value (its `const enum`s are not readable at run time)
const transactionErrors = (
  "AccountInUse AccountLoadedTwice AccountNotFound ProgramAccountNotFound InsufficientFundsForFee InvalidAccountForFee " +
  "AlreadyProcessed BlockhashNotFound CallChainTooDeep MissingSignatureForFee InvalidAccountIndex SignatureFailure " +
  "InvalidProgramForExecution SanitizeFailure ClusterMaintenance AccountBorrowOutstanding WouldExceedMaxBlockCostLimit " +
  "UnsupportedVersion InvalidWritableAccount WouldExceedMaxAccountCostLimit WouldExceedAccountDataBlockLimit " +
  "TooManyAccountLocks AddressLookupTableNotFound InvalidAddressLookupTableOwner InvalidAddressLookupTableData " +
  "InvalidAddressLookupTableIndex InvalidRentPayingAccount WouldExceedMaxVoteCostLimit WouldExceedAccountDataTotalLimit " +
  "MaxLoadedAccountsDataSizeExceeded ResanitizationNeeded InvalidLoadedAccountsDataSizeLimit UnbalancedTransaction " +
  "ProgramCacheHitMaxLimit CommitCancelled"
).split(" ")
const instructionErrors = (
  "GenericError InvalidArgument InvalidInstructionData InvalidAccountData AccountDataTooSmall InsufficientFunds " +
  "IncorrectProgramId MissingRequiredSignature AccountAlreadyInitialized UninitializedAccount UnbalancedInstruction " +
  "ModifiedProgramId ExternalAccountLamportSpend ExternalAccountDataModified ReadonlyLamportChange ReadonlyDataModified " +
  "DuplicateAccountIndex ExecutableModified RentEpochModified NotEnoughAccountKeys AccountDataSizeChanged " +
  "AccountNotExecutable AccountBorrowFailed AccountBorrowOutstanding DuplicateAccountOutOfSync InvalidError " +
  "ExecutableDataModified ExecutableLamportChange ExecutableAccountNotRentExempt UnsupportedProgramId CallDepth " +
  "MissingAccount ReentrancyNotAllowed MaxSeedLengthExceeded InvalidSeeds InvalidRealloc ComputationalBudgetExceeded " +
  "PrivilegeEscalation ProgramEnvironmentSetupFailure ProgramFailedToComplete ProgramFailedToCompile Immutable " +
  "IncorrectAuthority AccountNotRentExempt InvalidAccountOwner ArithmeticOverflow UnsupportedSysvar IllegalOwner " +
  "MaxAccountsDataAllocationsExceeded MaxAccountsExceeded MaxInstructionTraceLengthExceeded " +
  "BuiltinProgramsMustConsumeComputeUnits BorshIoError"
).split(" ")

type LitesvmError = ReturnType<FailedTransactionMetadata["err"]>

/** A litesvm transaction error in the RPC's JSON form (`"AlreadyProcessed"`, `{ InstructionError: [1, { Custom: 1 }] }`). */
const errorJson = (error: LitesvmError): unknown => {
  if (typeof error === "number") return transactionErrors[error] ?? `TransactionError(${error})`
  if ("err" in error) {
    const cause = error.err()
    const detail =
      typeof cause === "number"
        ? instructionErrors[cause]
        : "code" in cause
          ? { Custom: cause.code }
          : { BorshIoError: cause.msg }
    return { InstructionError: [error.index, detail] }
  }
  if ("accountIndex" in error)
    return { [error.constructor.name.replace("TransactionError", "")]: { account_index: error.accountIndex } }
  return { DuplicateInstruction: error.index }
}

/** The node's words for an error, as Agave's preflight prints them. */
const describe = (error: unknown): string => {
  const instruction = (error as { InstructionError?: [number, unknown] }).InstructionError
  if (instruction !== undefined) {
    const [index, cause] = instruction
    const custom = (cause as { Custom?: number }).Custom
    return `Error processing Instruction ${index}: ${custom === undefined ? String(cause) : `custom program error: 0x${custom.toString(16)}`}`
  }
  switch (error) {
    case "AlreadyProcessed":
      return "This transaction has already been processed"
    case "BlockhashNotFound":
      return "Blockhash not found"
    case "AccountNotFound":
      return "Attempt to debit an account but found no record of a prior credit."
    case "InsufficientFundsForFee":
      return "Insufficient funds for fee"
  }
  return JSON.stringify(error)
}

/**
 * A transaction's compute-unit price and limit, from its compute-budget instructions (the limit
 * defaults, as the runtime's, to 200,000 per other instruction, at most 1,400,000).
 */
const computeBudget = (transaction: VersionedTransaction) => {
  const keys = transaction.message.staticAccountKeys.map((key) => key.toBase58())
  let price = 0
  let limit: number | undefined
  let others = 0
  for (const instruction of transaction.message.compiledInstructions) {
    const data = Buffer.from(instruction.data)
    if (keys[instruction.programIdIndex] !== computeBudgetProgram) others++
    else if (data[0] === 2) limit = data.readUInt32LE(1)
    else if (data[0] === 3) price = Number(data.readBigUInt64LE(1))
  }
  return { price, limit: limit ?? Math.min(200_000 * others, 1_400_000) }
}

const compiled = (programIdIndex: number, accounts: Iterable<number>, data: Uint8Array) => ({
  programIdIndex,
  accounts: [...accounts],
  data: Base58.encode(data)
})

export interface LitesvmRpc {
  readonly url: string
  readonly svm: LiteSVM
  /** The head slot (= block height). */
  readonly head: () => number
  /** Produces `slots` more slots; a blockhash past its lifetime is replaced. */
  readonly advance: (slots: number) => void
  /** Advances until the current blockhash is past its last valid height at `finalized`. */
  readonly expireBlockhash: () => void
  readonly airdrop: (to: PublicKey, lamports: bigint) => void
  /** Executes a signed transaction as `sendTransaction` without preflight would. */
  readonly submit: (transaction: Transaction | VersionedTransaction) => Submitted
  /** Builds, signs with `signers` (the first pays), executes; fails loudly unless it succeeds. */
  readonly run: (signers: ReadonlyArray<Keypair>, ...instructions: Array<TransactionInstruction>) => string
  readonly createMint: (authority: Keypair, decimals: number, mint: Keypair) => PublicKey
  readonly mintTo: (mint: PublicKey, owner: PublicKey, amount: bigint, authority: Keypair) => void
  /** The base units held by a token account (0 when it does not exist). */
  readonly tokenBalance: (account: PublicKey) => bigint
  /** Landed transactions whose fee payer is `payer`, oldest first. */
  readonly paidBy: (
    payer: PublicKey
  ) => ReadonlyArray<{ readonly signature: string; readonly slot: number; readonly err: unknown }>
  /**
   * Whether account reads answer the state at their commitment's slot (`true`) or the current state
   * (`false`, the default: a test that sends and reads at once needs no slots between).
   */
  readonly readAtCommitment: (on: boolean) => void
  /** The next `count` HTTP requests get this status (429: rate limited, 503: unavailable). */
  readonly failNext: (count: number, status: number) => void
  /** Calls of `method` answer this JSON-RPC error code from now on (`undefined`: they work again). */
  readonly refuse: (method: string, code: number | undefined) => void
  /** How many calls of `method` the front end has answered (or refused) since it started. */
  readonly calls: (method: string) => number
  readonly close: () => Promise<void>
}

export const start = async (options: { readonly startSlot?: number } = {}): Promise<LitesvmRpc> => {
  const svm = new LiteSVM()
  type Address = Parameters<LiteSVM["getAccount"]>[0]
  const at = (key: string | PublicKey) => (typeof key === "string" ? key : key.toBase58()) as Address
  let head = options.startSlot ?? 1000
  svm.warpToSlot(BigInt(head))
  let issuedAt = head
  const landed = new Map<string, Landed>()
  const byAddress = new Map<string, Array<Landed>>()
  let failures: { count: number; status: number } = { count: 0, status: 200 }
  const refused = new Map<string, number>()
  const called = new Map<string, number>()
  /** Each account as it was before each change, oldest first, with the slot of the change. */
  const changes = new Map<string, Array<{ readonly slot: number; readonly before: AccountJson | null }>>()
  let atCommitment = false

  const slotAt = (commitment: Commitment | undefined) =>
    head - (commitment === "processed" ? 0 : commitment === "confirmed" ? confirmedLag : finalizedLag)
  const statusOf = (slot: number): Commitment =>
    head - slot >= finalizedLag ? "finalized" : head - slot >= confirmedLag ? "confirmed" : "processed"

  const advance = (slots: number) => {
    head += slots
    svm.warpToSlot(BigInt(head))
    if (head > issuedAt + blockhashLifetime) {
      svm.expireBlockhash()
      issuedAt = head
    }
  }

  const kit = (transaction: VersionedTransaction) =>
    ({
      messageBytes: transaction.message.serialize(),
      signatures: Object.fromEntries(
        transaction.message.staticAccountKeys
          .slice(0, transaction.message.header.numRequiredSignatures)
          .map((key, i) => [key.toBase58(), transaction.signatures[i]])
      )
    }) as unknown as Parameters<LiteSVM["sendTransaction"]>[0]

  const versioned = (transaction: Transaction | VersionedTransaction) =>
    transaction instanceof VersionedTransaction
      ? transaction
      : VersionedTransaction.deserialize(transaction.serialize())

  const submit = (input: Transaction | VersionedTransaction): Submitted => {
    const transaction = versioned(input)
    const signature = Base58.encode(transaction.signatures[0]!)
    const keys = transaction.message.staticAccountKeys.map((key) => key.toBase58())
    const balances = () => keys.map((key) => Number(svm.getBalance(at(key)) ?? 0n))
    const preBalances = balances()
    const before = keys.map(accountJson)
    const result = svm.sendTransaction(kit(transaction))
    const failed = result instanceof FailedTransactionMetadata
    const err = failed ? errorJson(result.err()) : null
    // a failed transaction is on chain only when it paid its fee (litesvm then keeps it in its history)
    if (failed && svm.getTransaction(signature as Parameters<LiteSVM["getTransaction"]>[0]) === null) {
      return { signature, err, landed: false }
    }
    for (const [i, key] of keys.entries()) remember(key, before[i]!)
    const meta: TransactionMetadata = failed ? result.meta() : result
    const message = transaction.message
    const budget = computeBudget(transaction)
    const record: Landed = {
      signature,
      slot: head,
      blockTime: Number(svm.getClock().unixTimestamp),
      version: transaction.version,
      keys,
      message: {
        header: message.header,
        accountKeys: keys,
        recentBlockhash: message.recentBlockhash,
        instructions: message.compiledInstructions.map((i) => compiled(i.programIdIndex, i.accountKeyIndexes, i.data)),
        ...(transaction.version === 0 ? { addressTableLookups: message.addressTableLookups } : {})
      },
      err,
      fee:
        5000 * message.header.numRequiredSignatures +
        Number((BigInt(budget.price) * BigInt(budget.limit) + 999_999n) / 1_000_000n),
      preBalances,
      postBalances: balances(),
      innerInstructions: meta
        .innerInstructions()
        .map((group, index) => ({
          index,
          instructions: group.map((inner) => ({
            ...compiled(
              inner.instruction().programIdIndex(),
              inner.instruction().accounts(),
              inner.instruction().data()
            ),
            stackHeight: inner.stackHeight()
          }))
        }))
        .filter((group) => group.instructions.length > 0),
      logs: meta.logs(),
      price: budget.price,
      writable: new Set(keys.filter((_, i) => message.isAccountWritable(i)))
    }
    landed.set(signature, record)
    for (const key of new Set(keys)) {
      const list = byAddress.get(key)
      if (list === undefined) byAddress.set(key, [record])
      else list.push(record)
    }
    return { signature, err, landed: true }
  }

  let runs = 0
  const run = (signers: ReadonlyArray<Keypair>, ...instructions: Array<TransactionInstruction>) => {
    const transaction = new Transaction({
      feePayer: signers[0]!.publicKey,
      blockhash: svm.latestBlockhash(),
      lastValidBlockHeight: issuedAt + blockhashLifetime
    }).add(
      ...instructions,
      // a numbered memo: the same instructions twice under one blockhash are still two transactions
      new TransactionInstruction({ programId: memoProgram, keys: [], data: Buffer.from(`test ${++runs}`) })
    )
    transaction.sign(...signers)
    const sent = submit(transaction)
    if (sent.err !== null) throw new Error(`test transaction failed: ${JSON.stringify(sent.err)}`)
    return sent.signature
  }

  /** An account as the RPC shows it (null: none). */
  function accountJson(key: string): AccountJson | null {
    const account = svm.getAccount(at(key))
    if (!account.exists) return null
    return {
      data: [Buffer.from(account.data).toString("base64"), "base64"],
      executable: account.executable,
      lamports: Number(account.lamports),
      owner: account.programAddress,
      rentEpoch: 0,
      space: account.data.length
    }
  }
  /** Records `key` as it was before a change in the head slot. */
  function remember(key: string, before: AccountJson | null) {
    const list = changes.get(key)
    if (list === undefined) changes.set(key, [{ slot: head, before }])
    else list.push({ slot: head, before })
  }
  /** `key` at the slot of `commitment`: as before the first change above it, else as it is. */
  const accountAt = (key: string, commitment: Commitment | undefined) => {
    if (!atCommitment) return accountJson(key)
    const top = slotAt(commitment)
    const change = changes.get(key)?.find((c) => c.slot > top)
    return change === undefined ? accountJson(key) : change.before
  }
  const context = () => ({ slot: head })
  const withContext = (value: unknown) => ({ context: context(), value })

  const sendTransaction = (encoded: string, options: Config) => {
    const transaction = VersionedTransaction.deserialize(Buffer.from(encoded, "base64"))
    if (options.skipPreflight !== true) {
      const simulated = svm.simulateTransaction(kit(transaction))
      if (simulated instanceof FailedTransactionMetadata) {
        const err = errorJson(simulated.err())
        throw new RpcError(-32002, `Transaction simulation failed: ${describe(err)}`, {
          err,
          logs: simulated.meta().logs(),
          accounts: null,
          unitsConsumed: Number(simulated.meta().computeUnitsConsumed())
        })
      }
    }
    // like a node, answer the signature even when the transaction is then dropped
    return submit(transaction).signature
  }

  const simulateTransaction = (encoded: string, options: Config) => {
    const transaction = VersionedTransaction.deserialize(Buffer.from(encoded, "base64"))
    if (options.replaceRecentBlockhash === true) transaction.message.recentBlockhash = svm.latestBlockhash()
    const verify = options.sigVerify !== false
    if (!verify) svm.withSigverify(false)
    let simulated: ReturnType<LiteSVM["simulateTransaction"]>
    try {
      simulated = svm.simulateTransaction(kit(transaction))
    } finally {
      if (!verify) svm.withSigverify(true)
    }
    const meta = simulated.meta()
    return withContext({
      err: simulated instanceof FailedTransactionMetadata ? errorJson(simulated.err()) : null,
      logs: meta.logs(),
      accounts: null,
      unitsConsumed: Number(meta.computeUnitsConsumed()),
      returnData: null
    })
  }

  /** Agave's answer from its cache of recent blocks (here: those of the last 150 slots in which something landed). */
  const recentPrioritizationFees = (accounts: ReadonlyArray<string>) => {
    const bySlot = new Map<number, Array<Landed>>()
    for (const t of landed.values()) {
      if (t.slot <= head - blockhashLifetime) continue
      const list = bySlot.get(t.slot)
      if (list === undefined) bySlot.set(t.slot, [t])
      else list.push(t)
    }
    return [...bySlot.entries()]
      .sort(([a], [b]) => a - b)
      .map(([slot, transactions]) => {
        const lowest = (list: ReadonlyArray<Landed>) => Math.min(...list.map((t) => t.price))
        const perAccount = accounts.map((account) => {
          const writing = transactions.filter((t) => t.writable.has(account))
          return writing.length === 0 ? 0 : lowest(writing)
        })
        return { slot, prioritizationFee: Math.max(lowest(transactions), ...perAccount) }
      })
  }

  const methods: Record<string, (params: Params) => unknown> = {
    simulateTransaction: ([encoded, options]) => simulateTransaction(String(encoded), config(options)),
    getRecentPrioritizationFees: ([accounts]) =>
      recentPrioritizationFees((accounts as Array<string> | undefined) ?? []),
    getSlot: ([options]) => slotAt(config(options).commitment),
    getBlockHeight: ([options]) => slotAt(config(options).commitment),
    getLatestBlockhash: () =>
      withContext({ blockhash: svm.latestBlockhash(), lastValidBlockHeight: issuedAt + blockhashLifetime }),
    getMinimumBalanceForRentExemption: ([size]) => Number(svm.minimumBalanceForRentExemption(BigInt(Number(size)))),
    getBalance: ([key, options]) => withContext(accountAt(String(key), config(options).commitment)?.lamports ?? 0),
    getAccountInfo: ([key, options]) => withContext(accountAt(String(key), config(options).commitment)),
    getMultipleAccounts: ([keys, options]) =>
      withContext((keys as Array<string>).map((key) => accountAt(key, config(options).commitment))),
    getTokenAccountsByOwner: ([owner, filter]) => {
      const ownerBytes = new PublicKey(String(owner)).toBytes()
      const mint = config(filter).mint
      const found = svm
        .getProgramAccounts(at(TOKEN_PROGRAM_ID))
        .filter(
          (account) =>
            account.data.length === 165 &&
            Buffer.from(account.data.subarray(32, 64)).equals(ownerBytes) &&
            (mint === undefined || new PublicKey(account.data.subarray(0, 32)).toBase58() === mint)
        )
      return withContext(found.map((account) => ({ pubkey: account.address, account: accountJson(account.address) })))
    },
    sendTransaction: ([encoded, options]) => sendTransaction(String(encoded), config(options)),
    getSignatureStatuses: ([signatures]) =>
      withContext(
        (signatures as Array<string>).map((signature) => {
          const found = landed.get(signature)
          if (found === undefined) return null
          const status = statusOf(found.slot)
          return {
            slot: found.slot,
            confirmations: status === "finalized" ? null : head - found.slot,
            err: found.err,
            status: found.err === null ? { Ok: null } : { Err: found.err },
            confirmationStatus: status
          }
        })
      ),
    getSignaturesForAddress: ([address, options]) => {
      const { commitment, minContextSlot, before, until, limit } = config(options)
      const top = slotAt(commitment)
      if (minContextSlot !== undefined && top < minContextSlot) {
        throw new RpcError(-32016, "Minimum context slot has not been reached", { contextSlot: top })
      }
      const newestFirst = [...(byAddress.get(String(address)) ?? [])].reverse().filter((t) => t.slot <= top)
      const from = before === undefined ? 0 : newestFirst.findIndex((t) => t.signature === before) + 1
      const to = until === undefined ? -1 : newestFirst.findIndex((t) => t.signature === until)
      return newestFirst
        .slice(from, to < 0 ? undefined : to)
        .slice(0, Math.min(limit ?? 1000, 1000))
        .map((t) => ({
          signature: t.signature,
          slot: t.slot,
          err: t.err,
          memo: null,
          blockTime: t.blockTime,
          confirmationStatus: statusOf(t.slot)
        }))
    },
    getTransaction: ([signature, options]) => {
      const found = landed.get(String(signature))
      if (found === undefined || found.slot > slotAt(config(options).commitment)) return null
      return {
        slot: found.slot,
        blockTime: found.blockTime,
        version: found.version,
        transaction: { signatures: [found.signature], message: found.message },
        meta: {
          err: found.err,
          status: found.err === null ? { Ok: null } : { Err: found.err },
          fee: found.fee,
          preBalances: found.preBalances,
          postBalances: found.postBalances,
          innerInstructions: found.innerInstructions,
          logMessages: found.logs,
          ...(found.version === 0 ? { loadedAddresses: { writable: [], readonly: [] } } : {})
        }
      }
    }
  }

  const answer = (request: { id?: unknown; method?: string; params?: Params }) => {
    try {
      called.set(request.method ?? "", (called.get(request.method ?? "") ?? 0) + 1)
      const method = methods[request.method ?? ""]
      if (method === undefined) throw new RpcError(-32601, `Method not found: ${request.method}`)
      const code = refused.get(request.method ?? "")
      if (code !== undefined) throw new RpcError(code, `${request.method} refused by the test`)
      return { jsonrpc: "2.0", id: request.id, result: method(request.params ?? []) }
    } catch (error) {
      const rpc = error instanceof RpcError ? error : new RpcError(-32603, String(error))
      return { jsonrpc: "2.0", id: request.id, error: { code: rpc.code, message: rpc.message, data: rpc.data } }
    }
  }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Array<Buffer> = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    if (failures.count > 0) {
      failures = { ...failures, count: failures.count - 1 }
      res.writeHead(failures.status, { "content-type": "text/plain" }).end("injected failure")
      return
    }
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
    const reply = Array.isArray(body) ? body.map(answer) : answer(body)
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(reply))
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error) => res.writeHead(500).end(String(error)))
  })
  // web3.js keeps its sockets alive: closed by the server after Node's default 5 s of quiet, one can
  // be reused as it closes (ECONNRESET) when a busy test machine leaves the gateway idle that long
  server.keepAliveTimeout = 10 * 60_000
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo

  return {
    url: `http://127.0.0.1:${port}`,
    svm,
    head: () => head,
    advance,
    expireBlockhash: () => advance(Math.max(1, issuedAt + blockhashLifetime + finalizedLag + 1 - head)),
    airdrop: (to, lamports) => {
      const before = accountJson(to.toBase58())
      svm.airdrop(at(to), lamports as Parameters<LiteSVM["airdrop"]>[1])
      remember(to.toBase58(), before)
    },
    submit,
    run,
    createMint: (authority, decimals, mint) => {
      const lamports = Number(svm.minimumBalanceForRentExemption(BigInt(MINT_SIZE)))
      run(
        [authority, mint],
        SystemProgram.createAccount({
          fromPubkey: authority.publicKey,
          newAccountPubkey: mint.publicKey,
          lamports,
          space: MINT_SIZE,
          programId: TOKEN_PROGRAM_ID
        }),
        createInitializeMint2Instruction(mint.publicKey, decimals, authority.publicKey, null)
      )
      return mint.publicKey
    },
    mintTo: (mint, owner, amount, authority) => {
      const account = getAssociatedTokenAddressSync(mint, owner, true)
      run(
        [authority],
        createAssociatedTokenAccountIdempotentInstruction(authority.publicKey, account, owner, mint),
        createMintToInstruction(mint, account, authority.publicKey, amount)
      )
    },
    tokenBalance: (account) => {
      const found = svm.getAccount(at(account))
      return found.exists ? Buffer.from(found.data).readBigUInt64LE(64) : 0n
    },
    paidBy: (payer) =>
      [...landed.values()]
        .filter((t) => t.keys[0] === payer.toBase58())
        .map(({ signature, slot, err }) => ({ signature, slot, err })),
    readAtCommitment: (on) => {
      atCommitment = on
    },
    failNext: (count, status) => {
      failures = { count, status }
    },
    refuse: (method, code) => {
      if (code === undefined) refused.delete(method)
      else refused.set(method, code)
    },
    calls: (method) => called.get(method) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
