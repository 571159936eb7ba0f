import type { Compilable, CompiledQuery, Kysely } from "kysely";
import type { Database } from "./schema.js";

/**
 * The values a statement takes: ids and lists of ids, put in markers' places;
 * numbers and absent values are part of the shape instead (a page's limit,
 * a bound that is or is not given), so each is compiled as it is.
 */
export type StatementArgs = Readonly<Record<string, string | readonly string[] | number | undefined>>;

/** Shapes kept per database handle; a shape is one statement for one combination of list lengths. */
const SHAPES_PER_HANDLE = 2_000;

/** Marks a value's place while a shape is compiled; no id holds a NUL. */
const MARKER = "\u0000";

/**
 * A read statement of the busiest pages, built and compiled by Kysely once
 * per shape instead of on every request: building and compiling the
 * visibility check or the viewer's marks cost about as much as SQLite takes
 * to run them. The shape is built with markers in place of the values (a
 * list of n ids is n markers, so each list length is its own shape) and
 * running it puts the real values in the markers' places; values the builder
 * wrote itself (constants, flags) stay as they were compiled. The cache is
 * kept per database handle, since a handle's plugins may rewrite what it
 * compiles. Plugins still see every result.
 */
export function compiledOnce<A extends StatementArgs, R>(
  build: (db: Kysely<Database>, args: A) => Compilable<R>,
): (db: Kysely<Database>, args: A) => Promise<R[]> {
  const handles = new WeakMap<Kysely<Database>, Map<string, CompiledQuery<R>>>();
  return async (db, args) => {
    let shapes = handles.get(db);
    if (!shapes) {
      shapes = new Map();
      handles.set(db, shapes);
    }
    const key = shapeKey(args);
    let compiled = shapes.get(key);
    if (!compiled) {
      compiled = build(db, markersFor(args)).compile();
      if (shapes.size >= SHAPES_PER_HANDLE) shapes.clear();
      shapes.set(key, compiled);
    }
    const parameters = compiled.parameters.map((parameter) => valueAt(parameter, args));
    const result = await db.executeQuery<R>({ ...compiled, parameters });
    return result.rows;
  };
}

function shapeKey(args: StatementArgs): string {
  let key = "";
  for (const name in args) {
    const value = args[name];
    if (typeof value === "string") key += `${name}:s;`;
    else if (typeof value === "number") key += `${name}=${value};`;
    else if (value === undefined) key += `${name}:u;`;
    else key += `${name}:${value.length};`;
  }
  return key;
}

function markersFor<A extends StatementArgs>(args: A): A {
  const markers: Record<string, string | string[] | number | undefined> = {};
  for (const name in args) {
    const value: string | readonly string[] | number | undefined = args[name];
    if (typeof value === "string") markers[name] = `${MARKER}${name}`;
    else if (typeof value === "number" || value === undefined) markers[name] = value;
    else markers[name] = value.map((_, index) => `${MARKER}${name}${MARKER}${index}`);
  }
  return markers as A;
}

function valueAt(parameter: unknown, args: StatementArgs): unknown {
  if (typeof parameter !== "string" || !parameter.startsWith(MARKER)) return parameter;
  const [name = "", index] = parameter.slice(1).split(MARKER);
  const value = args[name];
  if (typeof value === "string") return value;
  const item = typeof value === "object" ? value[Number(index)] : undefined;
  if (item === undefined) throw new Error(`No value for the statement's parameter ${name}[${index}]`);
  return item;
}
