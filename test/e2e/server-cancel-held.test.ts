/**
 * A cancel through the real server (stdin a real pipe) while the client does not read stdout: sent after the
 * hold bound paused stdin, it waits in stdin's buffer or the pipe, and is read when stdout drains, before any
 * held request is handed on, so the requests it cancels never run.
 */
import { expect, test } from "vitest";
import { startSentinelSession, type RawSession } from "../support/raw-stdio.js";

/** Resolves once the server's stderr holds `text`. */
function untilStderr(raw: RawSession, text: string): Promise<void> {
  return new Promise((resolve) => {
    const check = (): void => {
      if (!raw.stderr().includes(text)) return;
      raw.child.stderr.off("data", check);
      resolve();
    };
    raw.child.stderr.on("data", check);
    check();
  });
}

const ping = (id: string): string => `${JSON.stringify({ jsonrpc: "2.0", id, method: "ping" })}\n`;

test("cancels sent past the hold bound drop their held requests: none of them runs once the client reads stdout", async () => {
  const { raw } = startSentinelSession();
  try {
    await raw.initialize();
    raw.child.stdout.pause();
    // 2 MiB of answers fill stdout (a socket pair's buffers, the client's stream buffer): from then on requests are held.
    const filler = Array.from({ length: 64 }, (_, n) => `f${n}-${"x".repeat(32_000)}`);
    raw.send(filler.map(ping).join(""));
    // Past MAX_HELD_LINES held requests, the server stops reading stdin and says so.
    const paused = untilStderr(raw, "stdin is not read until the client reads stdout");
    raw.send(Array.from({ length: 2000 }, (_, n) => ping(`p${n}`)).join(""));
    await paused;
    // The first held requests, canceled after stdin was paused, behind 100 KB of notifications: more than the
    // server's stream buffers while paused, so the cancels wait in the socket (a socket pair: the kernel takes
    // it all) until the server reads it when stdout drains.
    const padding = `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/padding", params: { pad: "x".repeat(1000) } })}\n`;
    raw.send(padding.repeat(100));
    const canceled = Array.from({ length: 200 }, (_, n) => `p${n}`);
    raw.send(canceled.map((id) => `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } })}\n`).join(""));
    // All of it is in the socket (the kernel took it at once), none of it waits in this process.
    expect(raw.child.stdin.writableLength).toBe(0);

    raw.child.stdout.resume();
    // Held requests are handed on in order: once the last is answered, the canceled ones would have been.
    await raw.reply("p1999");
    const answered = new Set(raw.lines.map((line) => line.message?.id));
    for (const id of filler) expect(answered.has(id)).toBe(true);
    expect(canceled.filter((id) => answered.has(id))).toEqual([]);
    expect(answered.has("p200")).toBe(true);
  } finally {
    await raw.close();
  }
});
