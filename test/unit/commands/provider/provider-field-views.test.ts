/**
 * `torii provider upgrade` names every field of provider.yaml: the views map
 * (provider-field-views.ts) holds exactly the fields of the zod schema, so a
 * field added to the schema fails here until the upgrade diff shows it.
 */
import { describe, expect, it } from "vitest";
import type * as z from "zod";
import { FIELD_VIEWS } from "../../../../src/commands/provider/provider-field-views.js";
import { providerFileSchema } from "../../../../src/config/provider-schema.js";

/** The parts of a zod schema's definition the walk reads. */
interface Definition {
  readonly type: string;
  readonly innerType?: z.ZodType;
  readonly in?: z.ZodType;
  readonly shape?: Readonly<Record<string, z.ZodType>>;
}

const definitionOf = (schema: z.ZodType): Definition => (schema as unknown as { _zod: { def: Definition } })._zod.def;

/**
 * The dotted path of every field: objects are entered, through optional,
 * default and transform wrappers; anything else (a list, a table, a mapping
 * with keys of the operator's choosing, a scalar) is a field.
 */
function fieldPaths(schema: z.ZodType, path: readonly string[] = []): string[] {
  const definition = definitionOf(schema);
  if (definition.innerType !== undefined) return fieldPaths(definition.innerType, path);
  if (definition.type === "pipe" && definition.in !== undefined) return fieldPaths(definition.in, path);
  if (definition.type === "object" && definition.shape !== undefined) {
    return Object.entries(definition.shape).flatMap(([key, field]) => fieldPaths(field, [...path, key]));
  }
  return [path.join(".")];
}

describe("FIELD_VIEWS", () => {
  const schemaFields = fieldPaths(providerFileSchema);

  it("the walk reaches the nested fields (it enters optional and transformed objects)", () => {
    expect(schemaFields).toEqual(
      expect.arrayContaining(["argv.file_writes", "argv.parent_options", "auth.identity.args", "policy.resource_types.named.default"]),
    );
  });

  it("has a view for every field of the provider schema, and none for a field it does not have", () => {
    expect([...FIELD_VIEWS.keys()].sort()).toEqual([...schemaFields].sort());
  });
});
