import { Writable } from "node:stream";
import { describe, expect, test } from "vitest";
import { boundedLineWriter } from "../../../src/mcp/stderr-log.js";

/** A stderr the client does not read: nothing written completes until `read()`. */
function unreadStderr(): { stream: Writable; lines(): string[]; read(): void } {
  const chunks: string[] = [];
  const held: (() => void)[] = [];
  let reading = false;
  const stream = new Writable({
    highWaterMark: 16,
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString("utf8"));
      if (reading) callback();
      else held.push(callback);
    },
  });
  return {
    stream,
    lines: () =>
      chunks
        .join("")
        .split("\n")
        .filter((line) => line !== ""),
    read() {
      reading = true;
      for (const callback of held.splice(0)) callback();
    },
  };
}

describe("boundedLineWriter", () => {
  test("keeps at most the backlog unread while stderr is not read, and says how many lines it dropped", async () => {
    const stderr = unreadStderr();
    const write = boundedLineWriter(stderr.stream, 1000, () => undefined);
    for (let line = 0; line < 10_000; line += 1) write(`line ${line} ${"x".repeat(90)}`);
    // Past the backlog (plus the one line that crossed it) nothing more waits in memory.
    expect(stderr.stream.writableLength).toBeLessThan(1200);

    const drained = new Promise<void>((resolve) => stderr.stream.once("drain", resolve));
    stderr.read();
    await drained;
    write("after");
    const lines = stderr.lines();
    const kept = lines.filter((line) => line.startsWith("line ")).length;
    expect(kept).toBeLessThan(20);
    expect(lines.slice(-2)).toEqual([`torii: ${10_000 - kept} diagnostic line(s) dropped: stderr was not read`, "after"]);
  });

  test("a write that throws is reported, not thrown", () => {
    let failed = 0;
    const stream = new Writable({ write: (_chunk, _encoding, callback) => callback() });
    stream.write = () => {
      throw new Error("EPIPE");
    };
    boundedLineWriter(stream, 1000, () => (failed += 1))("x");
    expect(failed).toBe(1);
  });
});
