/**
 * Real Chromium for the browser suite: Debian's /usr/bin/chromium driven by
 * playwright-core (no browser download), headless, with a fresh profile
 * directory per launch and no background network. `resolverRules` maps test
 * host names to 127.0.0.1 (to present a foreign Host header, as DNS rebinding would).
 */
import { chromium, type BrowserContext } from "playwright-core";
import { tempDirectory } from "./temp-dirs.js";

export const CHROMIUM_PATH = process.env.TORII_CHROMIUM ?? "/usr/bin/chromium";

/** Launches Chromium with a fresh profile; close the context to end it. */
export function launchChromium(options: { resolverRules?: string } = {}): Promise<BrowserContext> {
  const profile = tempDirectory("torii-chromium-");
  return chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    viewport: { width: 1000, height: 1400 },
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      ...(options.resolverRules === undefined ? [] : [`--host-resolver-rules=${options.resolverRules}`]),
    ],
  });
}
