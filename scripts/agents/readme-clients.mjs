#!/usr/bin/env node
// Rewrites README.md's client list (between the clients:begin/end markers) from
// the adapter table, through the built dist/agents/ modules (run `npm run build`
// first; `npm run readme:clients` does). test/unit/agents/readme-clients.test.ts
// fails when the README and the table drift apart.
import { readFileSync, writeFileSync } from "node:fs";

const { CLIENTS } = await import("../../dist/agents/clients.js");
const { withReadmeClients } = await import("../../dist/agents/readme-clients.js");
const readmeUrl = new URL("../../README.md", import.meta.url);
const before = readFileSync(readmeUrl, "utf8");
const after = withReadmeClients(before, CLIENTS);
if (after !== before) writeFileSync(readmeUrl, after);
process.stdout.write(after === before ? "README.md client list already up to date\n" : "README.md client list rewritten\n");
