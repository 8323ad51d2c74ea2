import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { CLIENTS } from "../../../src/agents/clients.js";
import { readmeClientLines, withReadmeClients } from "../../../src/agents/readme-clients.js";

const README = readFileSync(new URL("../../../README.md", import.meta.url), "utf8");

describe("README client list", () => {
  test("matches the adapter table (run `npm run readme:clients` after changing src/agents/clients.ts)", () => {
    expect(withReadmeClients(README, CLIENTS)).toBe(README);
  });

  test("has one line per client, naming its command, file and key", () => {
    const lines = readmeClientLines(CLIENTS);
    expect(lines).toHaveLength(CLIENTS.length);
    for (const [index, client] of CLIENTS.entries()) {
      expect(lines[index]).toContain(`torii agent install ${client.id}`);
      expect(lines[index]).toContain(client.entryPath.join("."));
      expect(README).toContain(lines[index]);
    }
  });

  test("a changed table is detected as drift", () => {
    const renamed = CLIENTS.map((client, index) => (index === 0 ? { ...client, title: "Renamed" } : client));
    expect(withReadmeClients(README, renamed)).not.toBe(README);
  });
});
