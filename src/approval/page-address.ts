/**
 * The loopback address the approval page is served on: a random one of
 * 127.0.0.0/8 (every address there is this machine's on Linux and Windows),
 * so the page's origin, `http://127.a.b.c:<port>`, is one no other program has
 * served before.
 *
 * A browser binds to an origin what a page served there leaves behind, and an
 * origin is only scheme, host and port: a service worker that a page on
 * `http://127.0.0.1:<port>` registered (a dev server the agent started, which
 * the operator opened; or one of thousands of ports the agent served at once,
 * in frames of one such page) goes on intercepting every later navigation to
 * that origin, whatever program listens on the port by then. Were the page
 * server to get that port from the kernel, the worker would read the one-time
 * link, the page's key and token, and answer with the page's own cookie and
 * Origin. Every port of 127.0.0.1 is also one *site*, so such a page gets the
 * page's `SameSite=Strict` cookie sent, and can set cookies for it. A random
 * host among 2^24 takes the page out of the agent's reach: it would have had
 * to serve on that very address and port before.
 *
 * Where only 127.0.0.1 answers (macOS, unless more loopback addresses are
 * configured: EADDRNOTAVAIL) or a sandbox refuses another address, the server
 * falls back to it, as before (docs/approval.md says what remains there).
 */
import { randomInt } from "node:crypto";
import { readFileSync } from "node:fs";
import os from "node:os";

/** The address used when no other loopback address can be bound. */
export const FALLBACK_LOOPBACK = "127.0.0.1";

/** A random address in 127.0.0.0/8: not 127.0.0.1 (the usual one, where other programs serve), not the broadcast or network address. */
export function randomLoopback(): string {
  for (;;) {
    const [b, c, d] = [randomInt(256), randomInt(256), randomInt(1, 255)];
    if (b === 0 && c === 0 && d === 1) continue;
    return `127.${b}.${c}.${d}`;
  }
}

/**
 * The address the page server tries first: a random one, except under WSL, where the browser the opener starts
 * runs on Windows and reaches a server inside WSL only through WSL's forwarding of 127.0.0.1 and localhost (the
 * service-worker residual of the fallback then holds there too, docs/approval.md).
 */
export function pageAddress(env: Readonly<Record<string, string | undefined>>, choice: "loopback-random" | "127.0.0.1" = "loopback-random"): string {
  // The operator's `approval.address: 127.0.0.1` (settings.yaml): the page is reached only there (a port forward).
  return choice === "127.0.0.1" || underWsl(env) ? FALLBACK_LOOPBACK : randomLoopback();
}

/**
 * Whether this is WSL: its variables, or else the kernel's release, since
 * clients that start servers with a fixed environment (Codex, the MCP SDK's
 * default) drop WSL_DISTRO_NAME and WSL_INTEROP while the kernel still says
 * `…-microsoft-standard-WSL2` (WSL 1: `…-Microsoft`).
 */
function underWsl(env: Readonly<Record<string, string | undefined>>): boolean {
  if ((env.WSL_DISTRO_NAME ?? "") !== "" || (env.WSL_INTEROP ?? "") !== "") return true;
  if (/microsoft/iu.test(os.release())) return true;
  if (process.platform !== "linux") return false;
  try {
    return /microsoft/iu.test(readFileSync("/proc/sys/kernel/osrelease", "utf8"));
  } catch {
    return false;
  }
}
