// A local AWS STS endpoint for tests and `npm run demo`: an HTTP server on
// 127.0.0.1 that speaks the STS query protocol (form-encoded POST, XML answers)
// well enough for GetCallerIdentity, as the AWS SDK for JavaScript and the AWS
// CLI send it. The caller is recognised by the access key id of its SigV4
// Authorization header (the signature is not verified: this is a stand-in for
// the service, not a security boundary). Every request is logged, so a test
// can prove who called, with which key, on which path, and that nobody did.
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";

const NAMESPACE = "https://sts.amazonaws.com/doc/2011-06-15/";

/** The access key id of a SigV4 Authorization header, or undefined. */
function accessKeyIdOf(authorization) {
  return /Credential=([^/,\s]+)\//u.exec(authorization ?? "")?.[1];
}

function xmlError(status, code, message) {
  return {
    status,
    body: `<ErrorResponse xmlns="${NAMESPACE}"><Error><Type>Sender</Type><Code>${code}</Code><Message>${message}</Message></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`,
  };
}

function answer(identities, expired, action, accessKeyId) {
  if (action !== "GetCallerIdentity") return xmlError(400, "InvalidAction", `Could not find operation ${String(action)} for version 2011-06-15`);
  if (accessKeyId !== undefined && expired.has(accessKeyId)) return xmlError(403, "ExpiredToken", "The security token included in the request is expired");
  const identity = accessKeyId === undefined ? undefined : identities[accessKeyId];
  if (identity === undefined) return xmlError(403, "InvalidClientTokenId", "The security token included in the request is invalid.");
  const arn = identity.arn ?? `arn:aws:iam::${identity.account}:user/torii-stub`;
  return {
    status: 200,
    body:
      `<GetCallerIdentityResponse xmlns="${NAMESPACE}"><GetCallerIdentityResult>` +
      `<Arn>${arn}</Arn><UserId>AIDASTUB${identity.account}</UserId><Account>${identity.account}</Account>` +
      `</GetCallerIdentityResult><ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></GetCallerIdentityResponse>`,
  };
}

/**
 * Starts the stub on 127.0.0.1 (a free port unless `options.port` is given).
 *
 * @param {{ identities: Record<string, {account: string, arn?: string}>, expired?: readonly string[], hang?: readonly string[], port?: number }} options
 *   `identities` maps an access key id to the account it belongs to; a key in
 *   `expired` is answered 403 ExpiredToken, a key in `hang` never, an unknown
 *   key 403 InvalidClientTokenId.
 */
export async function startStsStub(options) {
  const expired = new Set(options.expired ?? []);
  const hang = new Set(options.hang ?? []);
  const requests = [];
  const server = createServer((request, response) => {
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", () => {
      const url = new URL(request.url ?? "/", "http://127.0.0.1");
      const form = new URLSearchParams(request.method === "POST" ? Buffer.concat(chunks).toString("utf8") : url.search);
      const entry = {
        method: request.method ?? "",
        path: url.pathname,
        action: form.get("Action") ?? undefined,
        accessKeyId: accessKeyIdOf(request.headers.authorization),
        userAgent: String(request.headers["user-agent"] ?? ""),
      };
      requests.push(entry);
      // A key in `hang` is never answered: the caller's timeout or cancellation must end the request.
      if (entry.accessKeyId !== undefined && hang.has(entry.accessKeyId)) return;
      const { status, body } = answer(options.identities, expired, entry.action, entry.accessKeyId);
      response.writeHead(status, { "content-type": "text/xml", "x-amzn-requestid": randomUUID() });
      response.end(body);
    });
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", resolve);
  });
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
