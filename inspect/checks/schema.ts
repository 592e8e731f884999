// JSON Schema as `mcp-inspect test` judges a tool's schemas: valid against the meta-schema of its
// dialect (2020-12 unless `$schema` names draft-07), every `$ref` resolvable, and values checked
// against it. ajv does this and is loaded only by the commands that check schemas.
import type { Result } from "../../lib/wire/result.ts";

type Json = Record<string, unknown>;
interface Engine {
  validateSchema(schema: Json): boolean | Promise<unknown>;
  compile(schema: Json): ((value: unknown) => boolean) & { errors?: unknown[] | null };
  errorsText(errors?: unknown[] | null): string;
  errors?: unknown[] | null;
}

const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-0[67]\/schema#?$/;
const DRAFT_2020_12 = /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;

let loaded: Promise<{ modern: () => Engine; draft7: () => Engine }> | undefined;

/** A fresh engine per schema: `$id`s of one server's schemas must not clash with another's. */
function engines() {
  loaded ??= (async () => {
    const [{ Ajv2020 }, { Ajv }] = await Promise.all([import("ajv/dist/2020.js"), import("ajv")]);
    // Not strict: schemas may carry keywords of their own (x-mcp-header); formats are not ours to judge.
    const options = { strict: false, validateFormats: false, allErrors: true, logger: false } as const;
    return {
      modern: () => new Ajv2020(options) as unknown as Engine,
      draft7: () => new Ajv(options) as unknown as Engine,
    };
  })();
  return loaded;
}

/** The schema's engine by its `$schema`, or why it has none. */
async function engineFor(schema: Json): Promise<Result<Engine>> {
  const { modern, draft7 } = await engines();
  const declared = schema.$schema;
  if (declared === undefined || (typeof declared === "string" && DRAFT_2020_12.test(declared))) return { ok: true, value: modern() };
  if (typeof declared === "string" && DRAFT_07.test(declared)) return { ok: true, value: draft7() };
  return { ok: false, error: `declares a dialect this check does not know ($schema ${JSON.stringify(declared).slice(0, 100)})` };
}

/** Why `schema` is not a valid JSON Schema, or undefined when it is. */
export async function schemaProblem(schema: unknown): Promise<string | undefined> {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return "is not a JSON object";
  const engine = await engineFor(schema as Json);
  if (!engine.ok) return engine.error;
  if (!(await engine.value.validateSchema(schema as Json))) return `fails the meta-schema: ${engine.value.errorsText(engine.value.errors)}`;
  try {
    engine.value.compile(schema as Json);
  } catch (error) {
    return `cannot be compiled: ${(error as Error).message}`;
  }
  return undefined;
}

/** Why `value` does not match `schema` (assumed valid), or undefined when it does. */
export async function mismatch(schema: Json, value: unknown): Promise<string | undefined> {
  const engine = await engineFor(schema);
  if (!engine.ok) return engine.error;
  try {
    const check = engine.value.compile(schema);
    return check(value) ? undefined : engine.value.errorsText(check.errors);
  } catch (error) {
    return `the schema cannot be compiled: ${(error as Error).message}`;
  }
}
