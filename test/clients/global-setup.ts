/**
 * Global setup of the real-client suite: the built Torii must exist, and the
 * pinned clients are installed (or found already installed) in their prefix.
 */
import { existsSync } from "node:fs";

export default async function setup(): Promise<void> {
  if (!existsSync(new URL("../../dist/cli.js", import.meta.url))) throw new Error("dist/cli.js is missing: run `npm run build` first.");
  const installer = new URL("../../scripts/clients/install-clients.mjs", import.meta.url).href;
  const { installClients } = (await import(installer)) as { installClients: () => number };
  const seconds = installClients();
  process.stderr.write(seconds === 0 ? "real clients: cached\n" : `real clients: installed in ${seconds.toFixed(1)} s\n`);
}
