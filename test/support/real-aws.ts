/**
 * The real AWS CLI (v1) for e2e tests: where the `aws` that .ci/run's python
 * owns lives, and the bundled provider without targeting (no lease, no STS
 * check; its grammar, locked options and removed_env stay).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { bundledProviderFilesWithout, makeConfigTree, type TreeFiles } from "./config-tree.js";
import { testPythonDirectory } from "./test-python.js";

/** The directory of the `aws` that belongs to the python .ci/run found (pyenv shims need a real HOME). */
export function awsDirectory(): string {
  return testPythonDirectory();
}

/** The bundled aws provider's files without `targeting.mode` and the identity probe. */
export function untargetedAws(): TreeFiles {
  return bundledProviderFilesWithout("aws", [
    ["targeting", "mode"],
    ["auth", "identity"],
  ]);
}

/** A 127.0.0.1 HTTP endpoint that answers every request with one body and counts the requests. */
export interface AnsweringEndpoint {
  readonly base: string;
  requests(): number;
  resetCount(): void;
  close(): Promise<void>;
}

/** Starts an AnsweringEndpoint (the AWS CLI writes `body` wherever an operation writes its response). */
export async function startAnsweringEndpoint(body: string): Promise<AnsweringEndpoint> {
  let count = 0;
  const server = createServer((request, response) => {
    count += 1;
    request.resume();
    response.writeHead(200, { "content-type": "application/json" }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    base: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`,
    requests: () => count,
    resetCount: () => {
      count = 0;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A HOME whose ~/.aws/config sends every AWS call to `base` (one attempt, JSON output). */
export function awsHomeFor(base: string): string {
  const home = makeConfigTree({});
  mkdirSync(path.join(home, ".aws"));
  writeFileSync(path.join(home, ".aws", "config"), `[default]\nregion = eu-central-2\nendpoint_url = ${base}\noutput = json\nmax_attempts = 1\n`);
  return home;
}

/** PATH for the child: the real aws first. */
export function awsChildPath(): string {
  return `${awsDirectory()}${path.delimiter}${process.env.PATH ?? "/usr/bin:/bin"}`;
}
