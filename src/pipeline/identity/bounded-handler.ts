/**
 * The transport of the STS check (and of its SSO requests): the SDK's Node
 * handler, with a bound on each response body. The SDK collects a body whole
 * before parsing it, so without a bound an endpoint the configuration names (a
 * local `AWS_ENDPOINT_URL_STS`, say) could stream gigabytes into the server's
 * memory for as long as the probe's timeouts allow. A body past the bound, by
 * its `content-length` or by what arrives, ends the request with
 * `ResponseTooLarge`: the check fails closed, naming no byte of the answer.
 */
import { Transform, type Readable, type TransformCallback } from "node:stream";
import { NodeHttpHandler } from "@smithy/node-http-handler";

/** What an STS or SSO answer needs, with room: a GetCallerIdentity answer is under 1 KiB, role credentials a few KiB. */
export const STS_RESPONSE_MAX_BYTES = 256 * 1024;

/** The error a too-large answer fails the request with (its name is the check's error code). */
export class ResponseTooLargeError extends Error {
  override readonly name = "ResponseTooLarge";
  constructor(limit: number) {
    super(`the endpoint's answer is larger than ${String(limit)} bytes`);
  }
}

/** Passes at most `limit` bytes of a body on, then fails with ResponseTooLargeError and stops reading the source. */
function boundedBody(source: Readable, limit: number): Readable {
  let seen = 0;
  const bounded = new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
      seen += chunk.length;
      if (seen > limit) {
        done(new ResponseTooLargeError(limit));
        return;
      }
      done(null, chunk);
    },
  });
  source.on("error", (error) => bounded.destroy(error));
  bounded.on("error", () => source.destroy());
  bounded.on("close", () => {
    if (!source.readableEnded) source.destroy();
  });
  return source.pipe(bounded);
}

/** NodeHttpHandler whose response bodies are bounded to `limit` bytes. */
export class BoundedBodyHttpHandler extends NodeHttpHandler {
  readonly #limit: number;

  constructor(options: ConstructorParameters<typeof NodeHttpHandler>[0], limit: number = STS_RESPONSE_MAX_BYTES) {
    super(options);
    this.#limit = limit;
  }

  override async handle(...args: Parameters<NodeHttpHandler["handle"]>): ReturnType<NodeHttpHandler["handle"]> {
    const result = await super.handle(...args);
    const { response } = result;
    const declared = Number(Object.entries(response.headers).find(([name]) => name.toLowerCase() === "content-length")?.[1]);
    const body = response.body as Readable | undefined;
    if (Number.isFinite(declared) && declared > this.#limit) {
      body?.destroy();
      throw new ResponseTooLargeError(this.#limit);
    }
    if (body !== undefined && typeof body.pipe === "function") response.body = boundedBody(body, this.#limit);
    return result;
  }
}
