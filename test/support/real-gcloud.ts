/**
 * What the real-gcloud end-to-end tests share: the bundled provider as a
 * target-less copy (a call needs no target) and gcloud run directly, without
 * Torii, as the control.
 */
import { spawn } from "node:child_process";
import { bundledProviderFilesWithout, type TreeFiles } from "./config-tree.js";

/** The directories the gcloud child gets as PATH. */
export const GCLOUD_CHILD_PATH = "/usr/bin:/bin";

/** The bundled gcloud provider's files without `targeting.mode`, everything else as shipped. */
export function gcloudProviderWithoutTargets(): TreeFiles {
  return bundledProviderFilesWithout("gcloud", [["targeting", "mode"]]);
}

/** Runs the real gcloud with `home` as HOME (its configuration there) and no shell; resolves to its exit code. */
export function runGcloudDirectly(args: readonly string[], home: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn("gcloud", args, { env: { PATH: GCLOUD_CHILD_PATH, HOME: home }, stdio: "ignore", shell: false });
    child.on("error", reject);
    child.on("exit", resolve);
  });
}
