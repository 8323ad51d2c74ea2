/**
 * A plain HTTP/1.1 request to 127.0.0.1 with exactly the headers a test
 * chooses (Host and Origin included, which fetch() would not let it forge).
 */
import { request } from "node:http";

export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

export function rawRequest(options: {
  /** The loopback address to connect to (the approval page's listens on a random one of 127.0.0.0/8); 127.0.0.1 by default. */
  readonly address?: string;
  readonly port: number;
  readonly path: string;
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: options.address ?? "127.0.0.1",
        port: options.port,
        path: options.path,
        method: options.method ?? "GET",
        headers: options.headers ?? {},
        setHost: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString("utf8") });
        });
        response.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}
