// npm chmods linked bins itself; this keeps `./dist/cli.js` runnable from a checkout too.
import { chmodSync } from "node:fs";
chmodSync(new URL("../dist/cli.js", import.meta.url), 0o755);
