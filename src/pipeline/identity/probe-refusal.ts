/**
 * A configuration the STS probe refuses to judge: where the AWS CLI (botocore)
 * would read the files, pick credentials or reach a host in a way the probe
 * (the JS SDK) does not reproduce, the check fails closed instead of confirming
 * an account the CLI might not use. `code` is an identifier; `detail` says what
 * to change, naming files, profiles and line numbers but never a value.
 */
export class ProbeRefusal extends Error {
  constructor(
    readonly code: string,
    detail: string,
  ) {
    super(detail);
    this.name = "ProbeRefusal";
  }
}
