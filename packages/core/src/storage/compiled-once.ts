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
  const handles = new WeakMap<Kysely<Database>, Map<string, Shape<R>>>();
  return async (db, args) => {
    let shapes = handles.get(db);
    if (!shapes) {
      shapes = new Map();
      handles.set(db, shapes);
    }
    const key = shapeKey(args);
    let shape = shapes.get(key);
    if (!shape) {
      const compiled = build(db, markersFor(args)).compile();
      shape = { compiled, places: compiled.parameters.map(placeOf) };
      if (shapes.size >= SHAPES_PER_HANDLE) shapes.clear();
      shapes.set(key, shape);
    }
    const result = await db.executeQuery<R>({ ...shape.compiled, parameters: shape.places.map((place) => valueAt(place, args)) });
    return result.rows;
  };
}

/** A compiled shape and, for each of its parameters, where its value comes from (read once, not on every run). */
interface Shape<R> {
  readonly compiled: CompiledQuery<R>;
  readonly places: readonly Place[];
}

/** A value the builder wrote itself, or the argument (and item of a list) a marker stands for. */
type Place = { readonly constant: unknown } | { readonly name: string; readonly index: number };

function placeOf(parameter: unknown): Place {
  if (typeof parameter !== "string" || !parameter.startsWith(MARKER)) return { constant: parameter };
  const [name = "", index] = parameter.slice(1).split(MARKER);
  return { name, index: index === undefined ? -1 : Number(index) };
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

function valueAt(place: Place, args: StatementArgs): unknown {
  if ("constant" in place) return place.constant;
  const value = args[place.name];
  if (typeof value === "string") return value;
  const item = typeof value === "object" ? value[place.index] : undefined;
  if (item === undefined) throw new Error(`No value for the statement's parameter ${place.name}[${place.index}]`);
  return item;
}
