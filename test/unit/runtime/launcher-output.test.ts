/**
 * launch(): one streaming byte budget across stdout and stderr, UTF-8-safe
 * truncation, and the process group killed when the budget runs out.
 */
import { describe, expect, it } from "vitest";
import { fc, prop } from "../../support/property-test.js";
import { CappedOutput, launch } from "../../../src/runtime/launcher.js";
import { firstLinePid, nodeScript, spawnGrandchild, waitUntilGone } from "./process-helpers.js";

const MIB = 1 << 20;

describe("launch: output cap", () => {
  it("caps a child writing 1 GiB: keeps exactly the cap, kills the group, stays bounded in memory", async () => {
    const cap = 4 * MIB;
    // Prints its grandchild's PID on stderr first, then writes 1 GiB to stdout as fast as the pipe takes it.
    const writer = `${spawnGrandchild("ignore")}
      process.stderr.write(grandchild.pid + "\\n");
      const block = Buffer.alloc(${MIB}, 97);
      let written = 0;
      (function pump() {
        while (written < 1024) {
          written += 1;
          if (!process.stdout.write(block)) { process.stdout.once("drain", pump); return; }
        }
      })();`;
    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    }, 5);
    const result = await launch(nodeScript(writer, { maxOutputBytes: cap, killGraceMs: 1000 })).finally(() => {
      clearInterval(sampler);
    });
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);

    expect(result.truncated).toBe(true);
    expect(Buffer.byteLength(result.stdout) + Buffer.byteLength(result.stderr)).toBe(cap);
    expect(result.stdout).toMatch(/^a+$/u);
    expect(result.exitCode).toBeNull();
    expect(result.signal).toBe("SIGTERM");
    expect(result.timedOut).toBe(false);
    // The kept 4 MiB plus its decoded copy and ordinary noise; a buffered 1 GiB would be far above this.
    expect(rssPeak - rssBefore).toBeLessThan(96 * MIB);
    expect(await waitUntilGone(firstLinePid(result.stderr))).toBe(true);
  });

  it("counts stdout and stderr against one budget, in arrival order", async () => {
    const script = `
      process.stderr.write("e".repeat(2000));
      setTimeout(() => process.stdout.write("o".repeat(5000)), 150);
      setTimeout(() => {}, 5000);`;
    const result = await launch(nodeScript(script, { maxOutputBytes: 4000 }));
    expect(result).toMatchObject({ truncated: true, stderr: "e".repeat(2000), stdout: "o".repeat(2000), signal: "SIGTERM" });
  });

  it("keeps the sum of interleaved writes at the cap", async () => {
    const script = `
      const fs = require("node:fs");
      for (let i = 0; i < 40; i += 1) { fs.writeSync(1, "o".repeat(1000)); fs.writeSync(2, "e".repeat(1000)); }`;
    const result = await launch(nodeScript(script, { maxOutputBytes: 25_000 }));
    expect(result.truncated).toBe(true);
    expect(result.stdout.length + result.stderr.length).toBe(25_000);
    expect(result.stdout).toMatch(/^o*$/u);
    expect(result.stderr).toMatch(/^e*$/u);
  });

  it("does not mark output that fits exactly as truncated", async () => {
    const result = await launch(nodeScript(`process.stdout.write("x".repeat(600)); process.stderr.write("y".repeat(400));`, { maxOutputBytes: 1000 }));
    expect(result).toMatchObject({ truncated: false, exitCode: 0, signal: null });
    expect(result.stdout.length + result.stderr.length).toBe(1000);
  });

  it("with a cap of zero keeps nothing, and only marks truncation when there was output", async () => {
    expect(await launch(nodeScript(`process.stdout.write("x")`, { maxOutputBytes: 0 }))).toMatchObject({ stdout: "", truncated: true });
    expect(await launch(nodeScript(``, { maxOutputBytes: 0 }))).toMatchObject({ stdout: "", truncated: false, exitCode: 0 });
  });
});

describe("launch: UTF-8-safe truncation", () => {
  // Each child writes its text and then idles, so only the cap ends it.
  const writeAndWait = (text: string): string => `process.stdout.write(${JSON.stringify(text)}); setTimeout(() => {}, 5000);`;

  it.each([
    ["ab\u00e9", 3, "ab"], // the cap lands after the first byte of "é" (C3 A9)
    ["x\u{1f600}", 2, "x"], // ... after the first byte of "😀" (F0 9F 98 80)
    ["x\u{1f600}", 3, "x"],
    ["x\u{1f600}", 4, "x"],
    ["x\u{1f600}y", 5, "x\u{1f600}"], // exactly on a boundary: the emoji is whole
    ["\u20ac\u20ac", 5, "\u20ac"], // "€" is three bytes
  ])("cuts %j at %i bytes to %j", async (text, cap, expected) => {
    const result = await launch(nodeScript(writeAndWait(text), { maxOutputBytes: cap }));
    expect(result.truncated).toBe(true);
    expect(result.stdout).toBe(expected);
    expect(result.stdout).not.toContain("\ufffd");
  });

  it("keeps a character whose bytes arrive in separate chunks", async () => {
    const script = `
      process.stdout.write(Buffer.from([0xc3]));
      setTimeout(() => process.stdout.write(Buffer.from([0xa9, 0x41])), 100);`;
    const result = await launch(nodeScript(script));
    expect(result).toMatchObject({ stdout: "\u00e9A", truncated: false });
  });

  it("leaves the child's own invalid bytes to the decoder when nothing was cut", async () => {
    const result = await launch(nodeScript(`process.stdout.write(Buffer.from([0x41, 0xff, 0x42, 0xe2, 0x82]))`));
    expect(result.stdout).toBe("A\ufffdB\ufffd");
  });
});

/** The longest prefix of `text`, whole code points only, whose UTF-8 form fits in `cap` bytes. */
function utf8Prefix(text: string, cap: number): string {
  let prefix = "";
  for (const character of text) {
    if (Buffer.byteLength(prefix + character) > cap) break;
    prefix += character;
  }
  return prefix;
}

/** Splits `bytes` at the given (unsorted, possibly repeated) offsets. */
function chunked(bytes: Buffer, cuts: readonly number[]): Buffer[] {
  const offsets = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const offset of [...offsets, bytes.length]) {
    chunks.push(bytes.subarray(from, offset));
    from = offset;
  }
  return chunks;
}

describe("CappedOutput", () => {
  prop([fc.string({ unit: "grapheme", maxLength: 60 }), fc.array(fc.nat(), { maxLength: 8 }), fc.nat({ max: 300 })])(
    "keeps the longest whole-character prefix that fits, however the bytes are chunked",
    (text, cuts, cap) => {
      const bytes = Buffer.from(text, "utf8");
      const output = new CappedOutput(cap);
      for (const chunk of chunked(bytes, cuts)) output.add("stdout", chunk);
      expect(output.truncated).toBe(bytes.length > cap);
      expect(output.keptBytes).toBe(Math.min(cap, bytes.length));
      expect(output.text("stdout")).toBe(utf8Prefix(text, cap));
      expect(output.text("stderr")).toBe("");
    },
  );

  prop([fc.array(fc.tuple(fc.constantFrom("stdout" as const, "stderr" as const), fc.string({ unit: "grapheme", maxLength: 10 }))), fc.nat({ max: 100 })])(
    "shares one budget between the streams, in arrival order",
    (writes, cap) => {
      const output = new CappedOutput(cap);
      const full = { stdout: "", stderr: "" };
      let total = 0;
      for (const [stream, text] of writes) {
        output.add(stream, Buffer.from(text, "utf8"));
        full[stream] += text;
        total += Buffer.byteLength(text);
      }
      const stdout = output.text("stdout");
      const stderr = output.text("stderr");
      expect(full.stdout.startsWith(stdout)).toBe(true);
      expect(full.stderr.startsWith(stderr)).toBe(true);
      expect(Buffer.byteLength(stdout) + Buffer.byteLength(stderr)).toBeLessThanOrEqual(Math.min(cap, total));
      expect(output.truncated).toBe(total > cap);
      if (total <= cap) expect({ stdout, stderr }).toEqual(full);
    },
  );

  it("reports the exhausting chunk exactly once", () => {
    const output = new CappedOutput(3);
    expect(output.add("stdout", Buffer.from("ab"))).toBe(false);
    expect(output.add("stderr", Buffer.from("cd"))).toBe(true);
    expect(output.add("stdout", Buffer.from("ef"))).toBe(false);
    expect([output.text("stdout"), output.text("stderr")]).toEqual(["ab", "c"]);
  });

  it("decodes the child's own invalid bytes to U+FFFD when nothing was cut", () => {
    const output = new CappedOutput(100);
    output.add("stdout", Buffer.from([0x41, 0xff, 0x42, 0xe2, 0x82]));
    expect(output.text("stdout")).toBe("A\ufffdB\ufffd");
  });
});
