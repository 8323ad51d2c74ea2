/**
 * linkedAbort (runtime/linked-abort.ts): a call's controller follows its
 * sources as AbortSignal.any would, and leaves no listener on a long-lived
 * source (the server's shutdown signal) once the call has ended.
 */
import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { linkedAbort } from "../../../src/runtime/linked-abort.js";

describe("linkedAbort", () => {
  it.each([0, 1])("aborts with the reason of source %i, whichever aborts first", (index) => {
    const sources = [new AbortController(), new AbortController()];
    const { controller } = linkedAbort(sources.map((source) => source.signal));
    const reason = new Error(`source ${index}`);
    sources[index]?.abort(reason);
    expect(controller.signal.aborted).toBe(true);
    expect(controller.signal.reason).toBe(reason);
  });

  it("is aborted at once when a source already is", () => {
    const { controller } = linkedAbort([new AbortController().signal, AbortSignal.abort("gone")]);
    expect(controller.signal.reason).toBe("gone");
  });

  it("leaves no listener on its sources after unlink, and no longer follows them", () => {
    const shutdown = new AbortController();
    const request = new AbortController();
    const links = [linkedAbort([request.signal, shutdown.signal]), linkedAbort([shutdown.signal])];
    expect(getEventListeners(shutdown.signal, "abort")).toHaveLength(2);
    for (const link of links) link.unlink();
    expect(getEventListeners(shutdown.signal, "abort")).toHaveLength(0);
    expect(getEventListeners(request.signal, "abort")).toHaveLength(0);
    shutdown.abort();
    expect(links.map((link) => link.controller.signal.aborted)).toEqual([false, false]);
  });

  it("detaches from the other sources once one has aborted it", () => {
    const [first, second] = [new AbortController(), new AbortController()];
    linkedAbort([first.signal, second.signal]);
    first.abort();
    expect(getEventListeners(second.signal, "abort")).toHaveLength(0);
  });

  it("aborts by the caller's own abort as well (a lost lease lock stops the launch)", () => {
    const link = linkedAbort([new AbortController().signal]);
    link.controller.abort("lease lock lost");
    expect(link.controller.signal.reason).toBe("lease lock lost");
  });
});
