/**
 * The local STS endpoint for tests. The implementation is scripts/sts-stub.mjs,
 * shared with `npm run demo` (which runs without a TypeScript step).
 */
export { startStsStub, type StsStub, type StsStubOptions, type StsStubRequest } from "../../scripts/sts-stub.mjs";
