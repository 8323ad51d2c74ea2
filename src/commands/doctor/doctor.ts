/**
 * `torii doctor [--json]`: what an MCP client will see, checked from here.
 *
 * The configuration is loaded by the function the server calls at start-up
 * (pipeline/server-configuration.ts: the trust rule, schemas, settings and
 * every rules file), and a failure is rendered by the same function the
 * server's stderr, log and `torii_config_error` tool use, so the operator
 * reads here exactly what the client would show, with file:line:col. Then per provider: rules, CLI and version, targets, leases,
 * grants; then the audit chain (audit/verify.ts) and client registrations
 * (registrations.ts, a hook point). Exit 1 when any finding is a `fail` (it
 * would stop a call), else 0.
 */
import { existsSync } from "node:fs";
import { auditLogPath } from "../../audit/audit-log.js";
import { auditFileProblems, auditLogPresent } from "../../audit/log-files.js";
import { verifyAuditLogSync } from "../../audit/verify.js";
import os from "node:os";
import { loadServerConfiguration, renderStartupFailure } from "../../pipeline/server-configuration.js";
import { configRoot } from "../shared/operator-context.js";
import { emit, type JsonOption } from "../shared/operator-output.js";
import { check, type DoctorCheck } from "./doctor-check.js";
import { providerChecks } from "./provider-checks.js";
import { pathCheck } from "./path-check.js";
import { clientRegistrationChecks } from "./registrations.js";
import { targetChecks } from "./target-checks.js";

/** Exit code of doctor when a finding would stop a call. */
export const EXIT_DOCTOR_FAIL = 1;

/** Every finding for the configuration root `root`. */
export async function doctorChecks(root: string): Promise<DoctorCheck[]> {
  if (!existsSync(root))
    return [check("config", "fail", `the configuration root ${root} does not exist`, "torii setup (or torii init, then torii provider install <name>)")];
  const load = loadServerConfiguration({ env: { ...process.env, TORII_CONFIG_DIR: root }, platform: process.platform, homedir: os.homedir() });
  if (!load.ok) {
    // An empty root is the one failure with a single command as its fix.
    const empty = /no providers installed/u.test(load.failure.message);
    return [
      check(
        empty ? "providers" : "config",
        "fail",
        renderStartupFailure(load.failure),
        empty
          ? "torii provider install kubectl --preset readonly (or torii setup)"
          : "fix each file:line:col above (the message says how), then run torii doctor again",
      ),
      ...(await clientRegistrationChecks(root)),
    ];
  }
  const { registry, settings } = load.configuration;
  const findings: DoctorCheck[] = [check("config", "ok", `${root} loads and passes the trust checks`), pathCheck(settings.pathTrustedDirectories)];
  for (const provider of registry.providers.values()) findings.push(...providerChecks(provider, registry), ...targetChecks(provider, registry));
  findings.push(auditCheck(root), ...(await clientRegistrationChecks(root)));
  return findings;
}

function auditCheck(root: string): DoctorCheck {
  const file = auditLogPath(root);
  try {
    const notRegular = auditFileProblems(file);
    if (notRegular.length > 0) {
      return check(
        "audit",
        "fail",
        `${file}: ${notRegular.map((problem) => problem.reason).join("; ")}`,
        "replace each link with the regular file it points to (or move it aside), then run torii audit verify",
      );
    }
    if (!auditLogPresent(file)) return check("audit", "ok", "no audit log yet (no call has been made)");
    const result = verifyAuditLogSync(file);
    if (result.ok) return check("audit", "ok", `${file}: ${result.records} record(s), chain intact`);
    const first = result.problems[0];
    const where = first === undefined ? "" : `; first: ${first.line === undefined ? "" : `line ${first.line}: `}${first.reason}`;
    return check(
      "audit",
      "warn",
      `${file}: ${result.problems.length + (result.omitted?.problems ?? 0)} problem(s)${where}`,
      "torii audit verify shows every problem; keep the log as evidence",
    );
  } catch (error) {
    return check("audit", "warn", `${file} cannot be read: ${(error as Error).message}`, "check the file's owner and mode");
  }
}

const MARK = { ok: "ok  ", warn: "warn", fail: "FAIL" } as const;

/** `torii doctor`. */
export async function runDoctor(options: JsonOption): Promise<number> {
  const root = configRoot();
  const findings = await doctorChecks(root);
  const failed = findings.filter((finding) => finding.status === "fail").length;
  const lines = findings.flatMap((finding) => [
    `${MARK[finding.status]} ${finding.subject}: ${finding.message}`,
    ...(finding.fix === undefined ? [] : [`     fix: ${finding.fix}`]),
  ]);
  lines.push(failed === 0 ? "no problem that would stop a call" : `${failed} problem(s) would stop calls`);
  emit(options, { root, ok: failed === 0, checks: findings }, lines);
  return failed === 0 ? 0 : EXIT_DOCTOR_FAIL;
}
