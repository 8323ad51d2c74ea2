/**
 * gcloud's file-writes listing (scripts/providers/gcloud-file-writes.txt, checked against
 * its review and provider.yaml by test/unit/policy/gcloud-file-writes.test.ts) is fresh
 * against the installed Google Cloud SDK: its generator finds no unreviewed candidate.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, it } from "vitest";
import { testPython } from "../support/test-python.js";

const at = (file: string): string => fileURLToPath(new URL(`../../${file}`, import.meta.url));

describe("the generated table against the installed SDK", () => {
  it.skipIf(!existsSync("/usr/lib/google-cloud-sdk/data/cli/gcloud_completions.py"))(
    "the installed SDK has no writer candidate that is neither listed nor reviewed",
    () => {
      // Exits non-zero naming any candidate with no review row, or when the listing differs.
      execFileSync(testPython(), [at("scripts/providers/gcloud_file_writes.py"), "--check"], { stdio: "pipe" });
    },
    // Python imports the SDK's 13,000-command completion tree: ~4 s of CPU, more wall time on a loaded machine.
    90_000,
  );
});
