/**
 * Reading what a client already wrote to stdin without waiting for the event
 * loop: when stdout drains, the transport reads this before it hands on any
 * request it held, so a `notifications/cancelled` the client sent before it
 * read stdout drops its held request by construction, not by which of the two
 * pipes libuv happens to poll first (./transport.ts).
 *
 * Only for a pipe or a socket (process.stdin is then a net.Socket whose
 * descriptor libuv set non-blocking, so a read with nothing to read fails with
 * EAGAIN at once). A terminal, a file or Windows (whose pipes are not
 * non-blocking to a plain read) gets no descriptor: the stream alone is read.
 */
import { readSync } from "node:fs";
import { Socket } from "node:net";
import type { Readable } from "node:stream";

/** How many bytes one read takes at most. */
const READ_BYTES = 64 * 1024;

/** The descriptor of `stdin` when it is the process's stdin on a pipe or socket (see above); else undefined. */
export function pipeDescriptorOf(stdin: Readable): number | undefined {
  if (process.platform === "win32" || !(stdin instanceof Socket)) return undefined;
  const { fd, isTTY } = stdin as Socket & { fd?: unknown; isTTY?: boolean };
  return isTTY !== true && typeof fd === "number" ? fd : undefined;
}

/**
 * What the descriptor holds now, at most READ_BYTES of it; undefined when it holds nothing (EAGAIN), is
 * at its end (that is left for the stream to see) or cannot be read (the stream reports its own errors).
 */
export function readWithoutBlocking(fd: number): Buffer | undefined {
  const buffer = Buffer.allocUnsafe(READ_BYTES);
  let bytes: number;
  try {
    bytes = readSync(fd, buffer, 0, READ_BYTES, null);
  } catch {
    return undefined;
  }
  // Not a copy: the line reader copies what it keeps past this chunk, and a held request keeps a copy of its line.
  return bytes === 0 ? undefined : buffer.subarray(0, bytes);
}
