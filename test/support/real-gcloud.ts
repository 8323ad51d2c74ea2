/**
 * What the real-gcloud end-to-end tests share: the bundled provider as a
 * target-less copy (a call needs no target) and gcloud run directly, without
 * Torii, as the control.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseDocument } from "yaml";

/** The directories the gcloud child gets as PATH. */
export const GCLOUD_CHILD_PATH = "/usr/bin:/bin";

/** providers/gcloud/provider.yaml without `targeting.mode`, everything else as shipped. */
export function gcloudProviderWithoutTargets(): string {
  const doc = parseDocument(readFileSync(fileURLToPath(new URL("../../providers/gcloud/provider.yaml", import.meta.url)), "utf8"));
  doc.deleteIn(["targeting", "mode"]);
  return String(doc);
}

/** Runs the real gcloud with `home` as HOME (its configuration there) and no shell; resolves to its exit code. */
export function runGcloudDirectly(args: readonly string[], home: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn("gcloud", args, { env: { PATH: GCLOUD_CHILD_PATH, HOME: home }, stdio: "ignore", shell: false });
    child.on("error", reject);
    child.on("exit", resolve);
  });
}
