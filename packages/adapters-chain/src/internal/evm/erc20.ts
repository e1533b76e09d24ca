/**
 * The slice of ERC-20 the gateway calls. `transfer` is declared without a return value: USDT on
 * ethereum returns nothing, and the gateway only signs the call (success is the receipt's status),
 * so this one ABI fits both kinds of token.
 */
import { parseAbi } from "viem"

export const abi = parseAbi([
  "function decimals() view returns (uint8)",
  "function balanceOf(address owner) view returns (uint256)",
  "function transfer(address to, uint256 value)",
  "event Transfer(address indexed from, address indexed to, uint256 value)"
])

export const transferEvent = abi[3]
