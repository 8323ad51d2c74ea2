/**
 * A Secret Manager endpoint on 127.0.0.1 for the real gcloud
 * (`api_endpoint_overrides/secretmanager`): it records the path of every
 * request, so a test sees which project gcloud asked for, and answers
 * `…/versions/<v>:access` with a payload that names that project.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface SecretManagerStub {
  /** The endpoint override value, `http://127.0.0.1:<port>/`. */
  readonly endpoint: string;
  /** Request paths received, oldest first. */
  readonly paths: string[];
  close(): Promise<void>;
}

/** The payload the stub returns for a secret of `project`: a test finds it in gcloud's output. */
export function secretPayloadOf(project: string): string {
  return `secret-of-${project}`;
}

const ACCESS = /^\/v1\/projects\/([^/]+)\/secrets\/([^/]+)\/versions\/([^/:]+):access$/u;

/** Starts the stub on an ephemeral port. */
export async function startSecretManagerStub(): Promise<SecretManagerStub> {
  const paths: string[] = [];
  const server: Server = createServer((request, response) => {
    const url = request.url ?? "";
    paths.push(url.split("?")[0] ?? url);
    request.resume();
    const access = ACCESS.exec(url.split("?")[0] ?? "");
    if (access === null) {
      response.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { code: 404, message: "not found", status: "NOT_FOUND" } }));
      return;
    }
    const [, project = "", secret = "", version = ""] = access;
    const body = {
      name: `projects/${project}/secrets/${secret}/versions/${version}`,
      payload: { data: Buffer.from(secretPayloadOf(project)).toString("base64") },
    };
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    endpoint: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/`,
    paths,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
