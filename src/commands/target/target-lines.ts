/**
 * A target's configuration as lines for the operator (`torii target add`,
 * `torii target show`). Its own module so the lease commands do not load
 * target-add.ts and, through it, the AWS account check and the pipeline's
 * identity code.
 */
import type { TargetConfig } from "../../config/target-schema.js";

/** The fields of a target, one per line (a target.yaml holds no secret). */
export function describeConfig(config: TargetConfig): string[] {
  const lines: string[] = [];
  // The only free-text field: no terminal control sequence reaches the operator's screen.
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is replaced
  if (config.description !== undefined) lines.push(`description: ${config.description.replace(/[\u0000-\u001f\u007f-\u009f]/gu, " ")}`);
  if (config.context !== undefined) lines.push(`context: ${config.context}`);
  if (config.kubeconfig !== undefined) lines.push(`kubeconfig: ${config.kubeconfig}`);
  if (config.region !== undefined) lines.push(`region: ${config.region}`);
  const identity = [`provider=${config.identity.provider}`, `scope=${config.identity.scope}`];
  if (config.identity.profile !== undefined) identity.push(`profile=${config.identity.profile}`);
  if (config.identity.expect !== undefined) identity.push(`expect=${config.identity.expect}`);
  lines.push(`identity: ${identity.join(" ")}`);
  return lines;
}
