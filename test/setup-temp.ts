/**
 * Runs before each test file (vitest `setupFiles`): when the file's tests are
 * done, the temporary directories its helpers made are removed. Registered
 * here rather than in the helper module, which a worker running its files in
 * one process (isolate: false) imports, and would hook, only once.
 */
import { afterAll } from "vitest";
import { removeTempDirectories } from "./support/temp-dirs.js";

afterAll(removeTempDirectories);
