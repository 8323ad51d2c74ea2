// npm chmods linked bins itself; this keeps `./dist/cli.cjs` (the bin) and `./dist/cli.js` runnable from a checkout too.
import { chmodSync } from "node:fs";
for (const entry of ["cli.cjs", "cli.js"]) chmodSync(new URL(`../dist/${entry}`, import.meta.url), 0o755);
