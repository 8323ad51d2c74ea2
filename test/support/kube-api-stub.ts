/**
 * A local Kubernetes API server for end-to-end tests: plain HTTP on 127.0.0.1,
 * speaking just enough of the API for `kubectl get pods` (discovery of the
 * core group and a pod list per namespace). Every request is logged, so a test
 * can prove which server (and, by the namespace in the path, which kubeconfig
 * context) kubectl reached.
 */
import { createServer } from "node:http";

export interface KubeApiRequest {
  readonly method: string;
  readonly path: string;
}

export interface KubeApiStub {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  readonly requests: KubeApiRequest[];
  close(): Promise<void>;
}

const DISCOVERY: Record<string, unknown> = {
  "/api": { kind: "APIVersions", versions: ["v1"], serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress: "127.0.0.1" }] },
  "/apis": { kind: "APIGroupList", apiVersion: "v1", groups: [] },
  "/api/v1": {
    kind: "APIResourceList",
    groupVersion: "v1",
    resources: [{ name: "pods", singularName: "pod", namespaced: true, kind: "Pod", verbs: ["get", "list"], shortNames: ["po"] }],
  },
};

function podList(namespace: string, pods: readonly string[]): unknown {
  return {
    kind: "PodList",
    apiVersion: "v1",
    metadata: { resourceVersion: "1" },
    items: pods.map((name) => ({
      kind: "Pod",
      apiVersion: "v1",
      metadata: { name, namespace, creationTimestamp: "2026-01-01T00:00:00Z" },
      status: { phase: "Running" },
    })),
  };
}

/** Starts the stub; `pods` are the pod names every namespace lists. */
export async function startKubeApiStub(pods: readonly string[]): Promise<KubeApiStub> {
  const requests: KubeApiRequest[] = [];
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    requests.push({ method: request.method ?? "", path: url.pathname });
    const namespace = /^\/api\/v1\/namespaces\/([^/]+)\/pods$/u.exec(url.pathname)?.[1];
    const body = namespace === undefined ? DISCOVERY[url.pathname] : podList(namespace, pods);
    if (body === undefined) {
      response.writeHead(404, { "content-type": "application/json" });
      response.end(JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", reason: "NotFound", code: 404 }));
      return;
    }
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

/**
 * An identity-only provider whose identity command (`print-kubeconfig`, from
 * `KUBECONFIG_IDENTITY_BIN`) reports the kubeconfig it was given, for targets
 * that expect their own pinned file. It reports the last entry of `KUBECONFIG`:
 * the broker puts a file selecting the target's context before the pinned one
 * (pipeline/child-kubeconfig.ts, withKubeContext).
 */
export const KUBECONFIG_IDENTITY_PROVIDER = `version: "1"
name: kubeid
tool: kubeid
expose: false
command: print-kubeconfig
auth:
  identity: {command: print-kubeconfig, args: [], field: kubeconfig}
`;

/** The fake CLI behind `KUBECONFIG_IDENTITY_PROVIDER`, for `makeFakeBin`. */
export const KUBECONFIG_IDENTITY_BIN = {
  "print-kubeconfig":
    "const files = (process.env.KUBECONFIG ?? '').split(process.platform === 'win32' ? ';' : ':'); process.stdout.write(JSON.stringify({ kubeconfig: files.at(-1) }));",
};
