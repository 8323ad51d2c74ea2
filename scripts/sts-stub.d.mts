/** One request the STS stub received. */
export interface StsStubRequest {
  readonly method: string;
  readonly path: string;
  readonly action: string | undefined;
  /** The access key id of the SigV4 Authorization header. */
  readonly accessKeyId: string | undefined;
  readonly userAgent: string;
}

export interface StsStubOptions {
  /** Access key id → the account (and optionally the ARN) GetCallerIdentity reports for it. */
  readonly identities: Readonly<Record<string, { readonly account: string; readonly arn?: string }>>;
  /** Access key ids answered 403 ExpiredToken. */
  readonly expired?: readonly string[];
  /** Access key ids never answered (for timeouts and cancellation). */
  readonly hang?: readonly string[];
  readonly port?: number;
}

export interface StsStub {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  /** Every request received, in order. */
  readonly requests: StsStubRequest[];
  close(): Promise<void>;
}

/** Starts a local STS query-protocol endpoint on 127.0.0.1. */
export function startStsStub(options: StsStubOptions): Promise<StsStub>;
