// JSON Schema as `mcp-inspect test` judges a tool's schemas: valid against the meta-schema of its
// dialect (2020-12 unless `$schema` names draft-07), every `$ref` resolvable, and values checked
// against it. ajv does this and is loaded only by the commands that check schemas.
import type { Result } from "../../lib/wire/result.ts";

type Json = Record<string, unknown>;
interface Engine {
  validateSchema(schema: Json): boolean | Promise<unknown>;
  compile(schema: Json): ((value: unknown) => boolean) & { errors?: unknown[] | null };
  errorsText(errors?: unknown[] | null): string;
  /** With no argument: every schema but the meta-schemas, and the cache. */
  removeSchema(): unknown;
  errors?: unknown[] | null;
}

const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-0[67]\/schema#?$/;
const DRAFT_2020_12 = /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;

let loaded: Promise<{ modern: Engine; draft7: Engine }> | undefined;

/**
 * One engine per dialect for the whole run: building one compiles its meta-schemas, which cost more
 * than judging a tool's schema (a fresh engine per schema was most of a `mcp-inspect test` run's CPU).
 */
function engines() {
  loaded ??= (async () => {
    const [{ Ajv2020 }, { Ajv }] = await Promise.all([import("ajv/dist/2020.js"), import("ajv")]);
    // Not strict: schemas may carry keywords of their own (x-mcp-header); formats are not ours to judge.
    const options = { strict: false, validateFormats: false, allErrors: true, logger: false } as const;
    return { modern: new Ajv2020(options) as unknown as Engine, draft7: new Ajv(options) as unknown as Engine };
  })();
  return loaded;
}

/** The schema's engine by its `$schema`, or why it has none. */
async function engineFor(schema: Json): Promise<Result<Engine>> {
  const { modern, draft7 } = await engines();
  const declared = schema.$schema;
  if (declared === undefined || (typeof declared === "string" && DRAFT_2020_12.test(declared))) return { ok: true, value: modern };
  if (typeof declared === "string" && DRAFT_07.test(declared)) return { ok: true, value: draft7 };
  return { ok: false, error: `declares a dialect this check does not know ($schema ${JSON.stringify(declared).slice(0, 100)})` };
}

/**
 * Compiles `schema` and runs `use` on the result, then forgets the schema: the `$id`s of one tool's
 * schemas must not clash with another's. Synchronous from compile to forgetting, so no other
 * schema's compile comes between.
 */
function withCompiled<T>(engine: Engine, schema: Json, use: (check: ReturnType<Engine["compile"]>) => T): T {
  try {
    return use(engine.compile(schema));
  } finally {
    engine.removeSchema();
  }
}

/** Why `schema` is not a valid JSON Schema, or undefined when it is. */
export async function schemaProblem(schema: unknown): Promise<string | undefined> {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return "is not a JSON object";
  const engine = await engineFor(schema as Json);
  if (!engine.ok) return engine.error;
  // The engine is shared: its errors are read before anything else may judge a schema.
  const valid = engine.value.validateSchema(schema as Json);
  const errors = engine.value.errors;
  if (!(valid instanceof Promise ? await valid : valid)) return `fails the meta-schema: ${engine.value.errorsText(errors)}`;
  try {
    withCompiled(engine.value, schema as Json, () => undefined);
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
    return withCompiled(engine.value, schema, (check) => (check(value) ? undefined : engine.value.errorsText(check.errors)));
  } catch (error) {
    return `the schema cannot be compiled: ${(error as Error).message}`;
  }
}
