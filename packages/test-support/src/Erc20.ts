/**
 * Test tokens for anvil, compiled offline with solc-js (`evmVersion: "paris"`, so no PUSH0 and the
 * bytecode runs on any EVM chain config): a standard ERC-20 whose decimals are a constructor
 * argument, and a USDT-style token whose `transfer` returns nothing. Both have an open `mint`.
 * The compiler output is cached on disk (one compile takes about a second).
 */
import { createHash } from "node:crypto"
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { Effect } from "effect"
import { type Abi, type Account, type Address, type Hash, type Hex, parseAbi } from "viem"
import type { AnvilClient } from "./Anvil.ts"

const standardSource = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

contract TestToken {
  string public name = "Test Token";
  string public symbol = "TST";
  uint8 public decimals;
  uint256 public totalSupply;
  mapping(address => uint256) public balanceOf;
  mapping(address => mapping(address => uint256)) public allowance;

  event Transfer(address indexed from, address indexed to, uint256 value);
  event Approval(address indexed owner, address indexed spender, uint256 value);

  constructor(uint8 decimals_) { decimals = decimals_; }

  function mint(address to, uint256 value) external {
    totalSupply += value;
    balanceOf[to] += value;
    emit Transfer(address(0), to, value);
  }

  /** Test hook: takes tokens away from anyone (to drain a hot wallet without its key). */
  function burn(address from, uint256 value) external {
    _move(from, address(0), value);
    totalSupply -= value;
  }

  function transfer(address to, uint256 value) external returns (bool) {
    _move(msg.sender, to, value);
    return true;
  }

  function approve(address spender, uint256 value) external returns (bool) {
    allowance[msg.sender][spender] = value;
    emit Approval(msg.sender, spender, value);
    return true;
  }

  function transferFrom(address from, address to, uint256 value) external returns (bool) {
    require(allowance[from][msg.sender] >= value, "allowance");
    allowance[from][msg.sender] -= value;
    _move(from, to, value);
    return true;
  }

  function _move(address from, address to, uint256 value) internal {
    require(balanceOf[from] >= value, "balance");
    balanceOf[from] -= value;
    balanceOf[to] += value;
    emit Transfer(from, to, value);
  }
}
`

/** Tether's quirk: `transfer` has no return value, so callers expecting a bool must not decode one. */
const usdtStyleSource = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

contract TetherStyleToken {
  string public name = "Tether Style";
  string public symbol = "USDTS";
  uint8 public decimals = 6;
  uint256 public totalSupply;
  mapping(address => uint256) public balanceOf;

  event Transfer(address indexed from, address indexed to, uint256 value);

  function mint(address to, uint256 value) external {
    totalSupply += value;
    balanceOf[to] += value;
    emit Transfer(address(0), to, value);
  }

  function burn(address from, uint256 value) external {
    require(balanceOf[from] >= value, "balance");
    balanceOf[from] -= value;
    totalSupply -= value;
    emit Transfer(from, address(0), value);
  }

  function transfer(address to, uint256 value) external {
    require(balanceOf[msg.sender] >= value, "balance");
    balanceOf[msg.sender] -= value;
    balanceOf[to] += value;
    emit Transfer(msg.sender, to, value);
  }
}
`

export interface Compiled {
  readonly abi: Abi
  readonly bytecode: Hex
}

export interface Tokens {
  readonly standard: Compiled
  readonly usdtStyle: Compiled
}

interface SolcOutput {
  readonly errors?: ReadonlyArray<{ readonly severity: string; readonly formattedMessage: string }>
  readonly contracts: Record<
    string,
    Record<string, { readonly abi: Abi; readonly evm: { readonly bytecode: { readonly object: string } } }>
  >
}

let cache: Tokens | undefined

const input = {
  language: "Solidity",
  sources: { "TestToken.sol": { content: standardSource }, "TetherStyleToken.sol": { content: usdtStyleSource } },
  settings: {
    evmVersion: "paris",
    optimizer: { enabled: true, runs: 200 },
    outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } }
  }
}

const compile = (): Tokens => {
  const solc = createRequire(import.meta.url)("solc") as { compile: (input: string) => string }
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput
  const errors = (output.errors ?? []).filter((e) => e.severity === "error")
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join("\n"))
  const pick = (file: string, name: string): Compiled => {
    const contract = output.contracts[file]?.[name]
    if (contract === undefined) throw new Error(`solc produced no ${name}`)
    return { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` }
  }
  return {
    standard: pick("TestToken.sol", "TestToken"),
    usdtStyle: pick("TetherStyleToken.sol", "TetherStyleToken")
  }
}

/**
 * Where the compiler output is kept between processes: named by the hash of the compiler's version
 * and the whole input, so a changed source or compiler is compiled afresh, under node_modules (a
 * reinstall clears it).
 */
const cacheFile = () => {
  const { version } = createRequire(import.meta.url)("solc/package.json") as { version: string }
  const key = createHash("sha256").update(version).update(JSON.stringify(input)).digest("hex").slice(0, 16)
  return join(import.meta.dirname, "..", "node_modules", ".cache", "test-tokens", `${key}.json`)
}

/**
 * Both tokens' ABI and creation bytecode: compiled once per machine (loading solc-js and compiling
 * take about a second), then read from the cache file by every process.
 */
export const compiled = (): Tokens => {
  if (cache !== undefined) return cache
  const file = cacheFile()
  try {
    cache = JSON.parse(readFileSync(file, "utf8")) as Tokens
  } catch {
    cache = compile()
    mkdirSync(dirname(file), { recursive: true })
    // written whole under another name, then renamed: a process reading at the same time sees all of it or nothing
    const partial = `${file}.${process.pid}`
    writeFileSync(partial, JSON.stringify(cache))
    renameSync(partial, file)
  }
  return cache
}

export type Kind = keyof Tokens

/** Sends `write` and waits for its receipt (anvil automines, a moment after it answers). */
const mined = (client: AnvilClient, write: () => Promise<Hash>) =>
  Effect.promise(async () => {
    const hash = await write()
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 5 })
    if (receipt.status !== "success") throw new Error(`test transaction ${hash} reverted`)
    return receipt
  })

/** Deploys a test token; `decimals` only for the standard one (the USDT-style one has 6). */
export const deploy = (client: AnvilClient, from: Account, kind: Kind, decimals = 6) =>
  Effect.map(
    mined(client, () => {
      const { abi, bytecode } = compiled()[kind]
      return client.deployContract({
        account: from,
        chain: null,
        abi,
        bytecode,
        args: kind === "standard" ? [decimals] : []
      })
    }),
    (receipt) => receipt.contractAddress!.toLowerCase() as Address
  )

const testAbi = parseAbi([
  "function mint(address to, uint256 value)",
  "function burn(address from, uint256 value)",
  "function transfer(address to, uint256 value)",
  "function balanceOf(address owner) view returns (uint256)"
])

const write =
  (functionName: "mint" | "burn" | "transfer") =>
  (client: AnvilClient, from: Account, token: Address, who: Address, units: bigint) =>
    mined(client, () =>
      client.writeContract({
        account: from,
        chain: null,
        address: token,
        abi: testAbi,
        functionName,
        args: [who, units]
      })
    )

export const mint = write("mint")
/** Test hook: takes `units` away from `who` (sent by anyone). */
export const burn = write("burn")
/** A transfer from `from` to `who`, in its own transaction (and block). */
export const transfer = write("transfer")

export const balanceOf = (client: AnvilClient, token: Address, owner: string) =>
  Effect.promise(() =>
    client.readContract({ address: token, abi: testAbi, functionName: "balanceOf", args: [owner as Address] })
  )
