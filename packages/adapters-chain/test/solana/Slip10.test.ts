/**
 * SLIP-10 ed25519 against the specification's test vector 1, and Solana funding addresses against
 * the derivation Phantom and the Solana CLI use for the BIP-39 test mnemonic.
 */
import { assert, describe, it } from "@effect/vitest"
import { Hex } from "effect/encoding"
import { Result } from "effect"
import * as Hd from "../../src/internal/solana/hd.ts"
import * as Slip10 from "../../src/internal/solana/slip10.ts"

const mnemonic = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"

const hex = (bytes: Uint8Array) => Hex.encode(bytes)
const bytes = (text: string) => Result.getOrThrow(Hex.decode(text))

// https://github.com/satoshilabs/slips/blob/master/slip-0010.md, "Test vector 1 for ed25519";
// public keys as the spec prints them, with its 0x00 prefix
const vector1: ReadonlyArray<readonly [ReadonlyArray<number>, string, string, string]> = [
  [
    [],
    "90046a93de5380a72b5e45010748567d5ea02bbf6522f979e05c0d8d8ca9fffb",
    "2b4be7f19ee27bbf30c667b642d5f4aa69fd169872f8fc3059c08ebae2eb19e7",
    "00a4b2856bfec510abab89753fac1ac0e1112364e7d250545963f135f2a33188ed"
  ],
  [
    [0],
    "8b59aa11380b624e81507a27fedda59fea6d0b779a778918a2fd3590e16e9c69",
    "68e0fe46dfb67e368c75379acec591dad19df3cde26e63b93a8e704f1dade7a3",
    "008c8a13df77a28f3445213a0f432fde644acaa215fc72dcdf300d5efaa85d350c"
  ],
  [
    [0, 1],
    "a320425f77d1b5c2505a6b1b27382b37368ee640e3557c315416801243552f14",
    "b1d0bad404bf35da785a64ca1ac54b2617211d2777696fbffaf208f746ae84f2",
    "001932a5270f335bed617d5b935c80aedb1a35bd9fc1e31acafd5372c30f5c1187"
  ],
  [
    [0, 1, 2],
    "2e69929e00b5ab250f49c3fb1c12f252de4fed2c1db88387094a0f8c4c9ccd6c",
    "92a5b23c0b8a99e37d07df3fb9966917f5d06e02ddbd909c7e184371463e9fc9",
    "00ae98736566d30ed0e9d2f4486a64bc95740d89c7db33f52121f8ea8f76ff0fc1"
  ],
  [
    [0, 1, 2, 2],
    "8f6d87f93d750e0efccda017d662a1b31a266e4a6f5993b15f5c1f07f74dd5cc",
    "30d1dc7e5fc04c31219ab25a27ae00b50f6fd66622f6e9c913253d6511d1e662",
    "008abae2d66361c879b900d204ad2cc4984fa2aa344dd7ddc46007329ac76c429c"
  ],
  [
    [0, 1, 2, 2, 1000000000],
    "68789923a0cac2cd5a29172a475fe9e0fb14cd6adb5ad98a3fa70333e7afa230",
    "8f94d394a8e8fd6b1bc2f3f49f5c47e385281d5c17e65324b0f62483e37e8793",
    "003c24da049451555d51a7014a37337aa4e12d41e485abccfa46b47dfb2af54b7a"
  ]
]

describe("SLIP-10 ed25519", () => {
  it("matches the specification's test vector 1", () => {
    const master = Slip10.master(bytes("000102030405060708090a0b0c0d0e0f"))
    for (const [path, chainCode, privateKey, publicKey] of vector1) {
      const node = Slip10.derive(master, path)
      assert.strictEqual(hex(node.chainCode), chainCode, `chain code of m/${path.join("'/")}`)
      assert.strictEqual(hex(node.privateKey), privateKey, `private key of m/${path.join("'/")}`)
      assert.strictEqual(`00${hex(Slip10.publicKey(node))}`, publicKey, `public key of m/${path.join("'/")}`)
    }
  })

  it("refuses indexes outside the hardened range", () => {
    const master = Slip10.master(bytes("000102030405060708090a0b0c0d0e0f"))
    assert.throws(() => Slip10.child(master, -1))
    assert.throws(() => Slip10.child(master, 2 ** 31))
    assert.throws(() => Slip10.child(master, 1.5))
  })
})

describe("Solana funding addresses", () => {
  it("production index 0 is m/44'/501'/0'/0', Phantom's first account for the test mnemonic", () => {
    const production = Hd.accountNode(mnemonic, "production")
    assert.isFalse(typeof production === "string")
    if (typeof production === "string") return
    assert.strictEqual(Hd.address(production, 0), "HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk")
  })

  it("sandbox is account 1: its index 0 is m/44'/501'/1'/0', and no address is shared", () => {
    const production = Hd.accountNode(mnemonic, "production")
    const sandbox = Hd.accountNode(mnemonic, "sandbox")
    if (typeof production === "string" || typeof sandbox === "string") return assert.fail("bad mnemonic")
    const master = Slip10.master(
      Result.getOrThrow(
        Hex.decode(
          // BIP-39 seed of the test mnemonic (empty passphrase)
          "5eb00bbddcf069084889a8ab9155568165f5c453ccb85e70811aaed6f6da5fc19a5ac40b389cd370d086206dec8aa6c43daea6690f20ad3d8d48b2d2ce9e38e4"
        )
      )
    )
    const direct = Slip10.derive(master, [44, 501, 1, 0])
    assert.strictEqual(Hd.address(sandbox, 0), Hd.address(Slip10.derive(master, [44, 501, 1]), 0))
    assert.strictEqual(hex(Slip10.child(sandbox, 0).privateKey), hex(direct.privateKey))
    const productionAddresses = new Set([0, 1, 2, 3].map((i) => Hd.address(production, i)))
    for (const i of [0, 1, 2, 3]) assert.isFalse(productionAddresses.has(Hd.address(sandbox, i)))
  })

  it("refuses a mnemonic that is not BIP-39", () => {
    assert.isString(Hd.accountNode("abandon abandon abandon", "sandbox"))
    assert.isString(Hd.accountNode(mnemonic.replace("about", "abandon"), "sandbox"))
  })
})
