/**
 * What the operator is told when a lease or grant change fails after its new
 * state was already renamed into place (the directory's fsync failed, or the
 * lock was found lost at release). The change is then in force: `torii target
 * activate` must not say "nothing was changed" about a lease that is active,
 * nor call the file unusable.
 */
import { describe, expect, test } from "vitest";
import { changeState } from "../../../../src/commands/shared/state-errors.js";
import { LeaseStore } from "../../../../src/state/lease-store.js";
import { STATE_LOCK_TIMING } from "../../../../src/state/lock.js";
import { FaultyFs, hex64, tempDir } from "../../state/helpers.js";

const B1 = hex64("b1");

async function failingAfterRename(step: "dir.sync" | "dir.close" | "openDirectory"): Promise<{ message: string; store: LeaseStore }> {
  const dir = tempDir();
  // Count the steps of a clean write, then fail the named one (after the rename).
  const probe = new FaultyFs(undefined);
  await new LeaseStore(tempDir(), { fs: probe, lockTiming: STATE_LOCK_TIMING }).activate("prod", B1, 30, "replace");
  const failAt = probe.steps.indexOf(step) + 1;
  expect(failAt).toBeGreaterThan(probe.steps.indexOf("rename") + 1);
  const faulty = new LeaseStore(dir, { fs: new FaultyFs(failAt), lockTiming: STATE_LOCK_TIMING });
  const error = await changeState("activate kube prod", "torii target clear kube keeps a copy", () => faulty.activate("prod", B1, 30, "replace")).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof Error)) throw new Error("the change did not fail");
  return { message: error.message, store: new LeaseStore(dir, { lockTiming: STATE_LOCK_TIMING }) };
}

describe("a state change that failed after its rename", () => {
  test.each(["openDirectory", "dir.sync", "dir.close"] as const)("a failure at %s says the lease is in force, never that nothing was changed", async (step) => {
    const { message, store } = await failingAfterRename(step);
    expect(store.isActive("prod", B1)).toBe(true);
    expect(message).not.toContain("nothing was changed");
    expect(message).not.toContain("unusable");
    expect(message).toContain("in force");
  });
});
