/**
 * Helpers for the stdio transport's unit tests: a stdout the test drains by hand, a transport started on a
 * stdin stream, and waiting for one event.
 */
import { PassThrough, Writable, type Readable } from "node:stream";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { BoundedStdioTransport, type BoundedStdioOptions } from "../../src/mcp/stdio/transport.js";

/** A stdout whose writes complete only when the test says so (release). */
export function heldStdout(): { stdout: Writable; written: string[]; release(): void } {
  const written: string[] = [];
  const held: (() => void)[] = [];
  let released = false;
  const stdout = new Writable({
    highWaterMark: 64,
    write(chunk: Buffer, _encoding, callback) {
      written.push(chunk.toString("utf8"));
      if (released) callback();
      else held.push(callback);
    },
  });
  return {
    stdout,
    written,
    release() {
      released = true;
      for (const callback of held.splice(0)) callback();
    },
  };
}

export interface Started<In extends Readable> {
  readonly stdin: In;
  readonly transport: BoundedStdioTransport;
  readonly messages: JSONRPCMessage[];
}

/** A started transport on `stdin` (a PassThrough by default) whose delivered messages are collected in order. */
export async function startedOn<In extends Readable = PassThrough>(
  stdout: Writable,
  options: Partial<Omit<BoundedStdioOptions, "stdout" | "stdin">> & { readonly stdin?: In } = {},
): Promise<Started<In>> {
  const stdin = options.stdin ?? (new PassThrough() as Readable as In);
  const transport = new BoundedStdioTransport({ maxMessageBytes: 1024, ...options, stdin, stdout });
  const messages: JSONRPCMessage[] = [];
  transport.onmessage = (message) => messages.push(message);
  await transport.start();
  return { stdin, transport, messages };
}

/** What identifies each delivered message: a request's id, else its method. */
export function idsOf(messages: readonly JSONRPCMessage[]): unknown[] {
  return messages.map((message) => ("id" in message ? message.id : "method" in message ? message.method : undefined));
}

/** Resolves once `emitter` has emitted `event`. */
export function once(emitter: NodeJS.EventEmitter, event: string): Promise<void> {
  return new Promise((resolve) => {
    emitter.once(event, () => {
      resolve();
    });
  });
}

/** An invalid line whose reply fills a `heldStdout` (its write is held past the 64-byte high-water mark). */
export const FILL = '{"jsonrpc":"2.0","id":"fill","method":"x","bad":"' + "x".repeat(100) + '"}\n';

export const ping = (id: string | number): string => `${JSON.stringify({ jsonrpc: "2.0", id, method: "ping" })}\n`;

export const cancel = (id: string | number): string => `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } })}\n`;
