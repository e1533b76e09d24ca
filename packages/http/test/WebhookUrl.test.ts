/**
 * The webhook address rules, one case per range: every IPv4 and IPv6 special-use block, and the
 * IPv6 forms that carry an IPv4 address (judged as that IPv4 address), without over-refusing the
 * public addresses next to them. (URL checks through `validate`: Operator.test.ts and Cli.test.ts.)
 */
import { assert, describe, it } from "@effect/vitest"
import * as WebhookUrl from "../src/WebhookUrl.ts"

const cases: ReadonlyArray<readonly [address: string, WebhookUrl.AddressClass, why: string]> = [
  // IPv4
  ["0.1.2.3", "non-public", `is "this network" (0.0.0.0/8)`],
  ["10.1.2.3", "non-public", "is private (10.0.0.0/8)"],
  ["100.127.255.254", "non-public", "is shared address space for carrier-grade NAT (100.64.0.0/10)"],
  ["100.128.0.1", "public", "is public"],
  ["127.9.9.9", "loopback", "is loopback (127.0.0.0/8)"],
  ["169.254.169.254", "non-public", "is link-local (169.254.0.0/16)"],
  ["172.31.255.255", "non-public", "is private (172.16.0.0/12)"],
  ["172.32.0.1", "public", "is public"],
  ["192.0.0.9", "non-public", "is reserved for IETF protocol assignments (192.0.0.0/24)"],
  ["192.0.2.10", "non-public", "is documentation (192.0.2.0/24)"],
  ["192.88.99.1", "non-public", "is the deprecated 6to4 relay anycast (192.88.99.0/24)"],
  ["192.168.1.1", "non-public", "is private (192.168.0.0/16)"],
  ["198.19.255.255", "non-public", "is benchmarking (198.18.0.0/15)"],
  ["198.51.100.7", "non-public", "is documentation (198.51.100.0/24)"],
  ["203.0.113.9", "non-public", "is documentation (203.0.113.0/24)"],
  ["239.255.255.250", "non-public", "is multicast (224.0.0.0/4)"],
  ["240.0.0.1", "non-public", "is reserved (240.0.0.0/4)"],
  ["255.255.255.255", "non-public", "is limited broadcast (255.255.255.255/32)"],
  ["93.184.215.14", "public", "is public"],
  // IPv6 ranges
  ["::", "non-public", "is unspecified (::/128)"],
  ["::1", "loopback", "is loopback (::1/128)"],
  ["100::1", "non-public", "is discard-only (100::/64)"],
  ["100:0:0:1::1", "non-public", "is the dummy prefix (100:0:0:1::/64)"],
  ["2001:1::1", "public", "is public"],
  ["2001:2::1", "non-public", "is benchmarking (2001:2::/48)"],
  ["2001:3::1", "public", "is public"],
  ["2001:4:112::1", "public", "is public"],
  ["2001:10::1", "non-public", "is ORCHID, deprecated (2001:10::/28)"],
  ["2001:20::1", "non-public", "is ORCHIDv2, identifiers that are not routed to a host (2001:20::/28)"],
  ["2001:30::1", "non-public", "is DRIP entity tags, identifiers that are not routed to a host (2001:30::/28)"],
  ["2001:1ff::1", "non-public", "is reserved for IETF protocol assignments (2001::/23)"],
  ["2001:200::1", "public", "is public"],
  ["2001:db8::1", "non-public", "is documentation (2001:db8::/32)"],
  ["3fff:fff::1", "non-public", "is documentation (3fff::/20)"],
  ["3fff:1000::1", "public", "is public"],
  ["5f00::1", "non-public", "is segment routing (SRv6 SIDs) (5f00::/16)"],
  ["fd12:3456::1", "non-public", "is unique-local (fc00::/7)"],
  ["fe80::1", "non-public", "is link-local (fe80::/10)"],
  ["fe80::1%eth0", "non-public", "is link-local (fe80::/10)"],
  ["fec0::1", "non-public", "is site-local, deprecated (fec0::/10)"],
  ["ff02::1", "non-public", "is multicast (ff00::/8)"],
  ["4000::1", "non-public", "is outside the global unicast range (2000::/3)"],
  ["::1:2:3:4", "non-public", "is outside the global unicast range (2000::/3)"],
  ["2606:4700::1111", "public", "is public"],
  // IPv6 forms carrying an IPv4 address
  ["::ffff:10.0.0.1", "non-public", "embeds 10.0.0.1, which is private (10.0.0.0/8)"],
  ["::ffff:7f00:1", "loopback", "embeds 127.0.0.1, which is loopback (127.0.0.0/8)"],
  ["::ffff:8.8.8.8", "public", "is public"],
  ["::a9fe:a9fe", "non-public", "embeds 169.254.169.254, which is link-local (169.254.0.0/16)"],
  ["::8.8.8.8", "non-public", "is IPv4-compatible, deprecated (::/96)"],
  ["64:ff9b::a9fe:a9fe", "non-public", "embeds 169.254.169.254, which is link-local (169.254.0.0/16)"],
  ["64:ff9b::7f00:1", "loopback", "embeds 127.0.0.1, which is loopback (127.0.0.0/8)"],
  ["64:ff9b::808:808", "public", "is public"],
  // /48: 169.254 in bits 48..63, 169.254 in 72..87; the last 32 bits (8.8.8.8) are not the IPv4 address
  ["64:ff9b:1:a9fe:a9:fe00:808:808", "non-public", "embeds 169.254.169.254, which is link-local (169.254.0.0/16)"],
  ["64:ff9b:1:808:8:800::", "non-public", "is local-use NAT64 (64:ff9b:1::/48)"],
  ["2002:a9fe:a9fe::1", "non-public", "embeds 169.254.169.254, which is link-local (169.254.0.0/16)"],
  ["2002:7f00:1::1", "loopback", "embeds 127.0.0.1, which is loopback (127.0.0.0/8)"],
  ["2002:808:808::1", "public", "is public"],
  // Teredo: server 65.54.227.120; client 169.254.169.254 / 8.8.8.8, stored inverted
  [
    "2001:0:4136:e378:8000:63bf:5601:5601",
    "non-public",
    "embeds 169.254.169.254, which is link-local (169.254.0.0/16)"
  ],
  ["2001:0:a00:1:8000:63bf:f7f7:f7f7", "non-public", "embeds 10.0.0.1, which is private (10.0.0.0/8)"],
  ["2001:0:4136:e378:8000:63bf:f7f7:f7f7", "public", "is public"],
  // not addresses
  ["not-an-ip", "non-public", "is not an IP address"],
  ["1.2.3", "non-public", "is not an IP address"],
  ["01.2.3.4", "non-public", "is not an IP address"],
  ["1::2::3", "non-public", "is not an IP address"],
  ["1:2:3:4:5:6:7:8:9", "non-public", "is not an IP address"],
  ["::ffff:1.2.3.256", "non-public", "is not an IP address"],
  ["12345::", "non-public", "is not an IP address"]
]

describe("WebhookUrl.classify", () => {
  for (const [address, kind, why] of cases) {
    it(`${address} ${why}`, () => {
      assert.deepStrictEqual(WebhookUrl.classify(address), { class: kind, why })
    })
  }
})
