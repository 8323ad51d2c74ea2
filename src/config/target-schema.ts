/**
 * `providers/<name>/targets/<alias>/target.yaml`: one human-chosen binding
 * (a kube context, an AWS profile and account, or a credential scope) that the
 * agent can only name by its alias.
 *
 * Which fields a target may or must have depends on its provider's
 * `targeting.mode`, so the schema is built for the owning provider. Checks that
 * need another provider's file (the identity provider) are the registry's.
 */
import path from "node:path";
import * as z from "zod";
import { isFullyQualifiedPath, safeNameSchema, singleLineSchema, versionSchema } from "./common-fields.js";
import type { TargetMode } from "./provider-schema.js";
import { parseYamlDocument, readYamlDocument } from "./yaml-document.js";
import type { YamlDocument } from "./yaml-document.js";

/** What a target's schema needs to know about the provider that owns it. */
export interface TargetOwner {
  /** The owning provider's `name`. */
  readonly name: string;
  /** The owning provider's `targeting.mode`; undefined when it takes no target. */
  readonly mode: TargetMode | undefined;
}

/** An AWS account id: exactly twelve ASCII digits. */
const AWS_ACCOUNT_ID = /^[0-9]{12}$/;

/**
 * A value the broker passes to the CLI next to an option (`--context`,
 * `--profile`); a leading "-" could be read as an option of its own.
 */
function injectedValueSchema(): z.ZodString {
  return singleLineSchema()
    .refine((value) => !value.startsWith("-"), { error: 'must not start with "-"' })
    .refine((value) => !/[\u0080-\u009f\u2028\u2029]/u.test(value), { error: "must not hold a C1 control character or a Unicode line or paragraph separator" });
}

const baseTargetSchema = z.strictObject({
  version: versionSchema,
  name: safeNameSchema(64),
  description: z.string().optional(),
  context: injectedValueSchema().optional(),
  // The kubeconfig the child, `torii target add` and the identity check all read (as KUBECONFIG).
  kubeconfig: singleLineSchema()
    .refine((file) => isFullyQualifiedPath(file) && !file.includes(path.delimiter), { error: "must be one absolute path (not a list)" })
    .optional(),
  region: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,63}$/, { error: 'must be ASCII letters, digits and "-" (at most 64)' })
    .optional(),
  identity: z.strictObject({
    provider: singleLineSchema(),
    scope: safeNameSchema(128).optional(),
    profile: injectedValueSchema().optional(),
    // An unquoted account id is a YAML number and would lose its leading zeros.
    expect: singleLineSchema('must be a string; quote it (expect: "012345678901") so leading zeros are kept').optional(),
  }),
});

type TargetFile = z.output<typeof baseTargetSchema>;

/** A validated `target.yaml`, with `identity.scope` defaulted to the target name. */
export interface TargetConfig extends Omit<TargetFile, "identity"> {
  readonly identity: Omit<TargetFile["identity"], "scope"> & { readonly scope: string };
}

/** The schema of `target.yaml` for a target of `owner`. */
export function targetFileSchema(owner: TargetOwner): z.ZodType<TargetConfig> {
  return baseTargetSchema
    .superRefine((target, ctx) => {
      const refuse = (path: readonly string[], message: string): void => {
        ctx.addIssue({ code: "custom", path: [...path], message, params: { anchor: "key" } });
      };
      const demand = (path: readonly string[], message: string): void => {
        ctx.addIssue({ code: "custom", path: [...path], message });
      };
      switch (owner.mode) {
        case undefined:
          demand([], `provider ${owner.name} has no targeting.mode, so it cannot have targets`);
          break;
        case "kubectl_context":
          if (target.context === undefined) demand(["context"], "required for kubectl_context targets");
          if (target.region !== undefined) refuse(["region"], "only allowed for aws_profile targets");
          break;
        case "aws_profile":
          if (target.context !== undefined) refuse(["context"], "only allowed for kubectl_context targets");
          if (target.kubeconfig !== undefined) refuse(["kubeconfig"], "only allowed for kubectl_context targets");
          if (target.identity.profile === undefined) demand(["identity", "profile"], "required for aws_profile targets");
          if (target.identity.expect === undefined) {
            demand(["identity", "expect"], "required for aws_profile targets (the 12-digit AWS account id)");
          } else if (!AWS_ACCOUNT_ID.test(target.identity.expect)) {
            demand(["identity", "expect"], "must be a 12-digit AWS account id");
          }
          if (target.identity.provider !== owner.name) {
            // The account check runs through the same CLI and profile as the call itself.
            demand(["identity", "provider"], `must be this provider itself (${owner.name}) for aws_profile targets`);
          }
          break;
        case "credentials":
          if (target.context !== undefined) refuse(["context"], "only allowed for kubectl_context targets");
          if (target.kubeconfig !== undefined) refuse(["kubeconfig"], "only allowed for kubectl_context targets");
          if (target.region !== undefined) refuse(["region"], "only allowed for aws_profile targets");
          if (target.identity.profile !== undefined) refuse(["identity", "profile"], "only allowed for aws_profile targets");
          break;
      }
    })
    .transform((target): TargetConfig => ({ ...target, identity: { ...target.identity, scope: target.identity.scope ?? target.name } }));
}

/**
 * Reads and validates one `target.yaml` for a target of `owner`.
 *
 * @throws ConfigError with the file, line and column of each problem.
 */
export function loadTargetDocument(file: string, owner: TargetOwner): YamlDocument<TargetConfig> {
  return readYamlDocument(file, targetFileSchema(owner));
}

/**
 * Validates `text`, the contents of the `target.yaml` at `file`, for a target of `owner`.
 *
 * @throws ConfigError with the file, line and column of each problem.
 */
export function parseTargetDocument(file: string, text: string, owner: TargetOwner): YamlDocument<TargetConfig> {
  return parseYamlDocument(file, text, targetFileSchema(owner));
}
