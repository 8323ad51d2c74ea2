/**
 * The page's loopback address: a random one of 127.0.0.0/8 (never 127.0.0.1, where other programs serve and leave
 * service workers behind), except under WSL, whose browser runs on Windows and reaches WSL only at 127.0.0.1.
 */
import { describe, expect, test } from "vitest";
import { pageAddress, randomLoopback } from "../../../src/approval/page-address.js";

describe("the page's loopback address", () => {
  test("a random address of 127.0.0.0/8, never 127.0.0.1, nor a network or broadcast address", () => {
    const seen = new Set<string>();
    for (let round = 0; round < 2000; round += 1) {
      const address = randomLoopback();
      const octets = address.split(".").map(Number);
      expect(octets[0]).toBe(127);
      expect(octets.every((octet) => Number.isInteger(octet) && octet >= 0 && octet <= 255)).toBe(true);
      expect(octets[3]).not.toBe(0);
      expect(octets[3]).not.toBe(255);
      expect(address).not.toBe("127.0.0.1");
      seen.add(address);
    }
    expect(seen.size).toBeGreaterThan(1900);
    expect(pageAddress({})).not.toBe("127.0.0.1");
  });

  test("under WSL 127.0.0.1, which WSL forwards to the Windows browser", () => {
    expect(pageAddress({ WSL_DISTRO_NAME: "Ubuntu" })).toBe("127.0.0.1");
    expect(pageAddress({ WSL_INTEROP: "/run/WSL/1_interop" })).toBe("127.0.0.1");
    expect(pageAddress({ WSL_DISTRO_NAME: "" })).not.toBe("127.0.0.1");
  });
});
